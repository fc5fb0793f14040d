import fc from 'fast-check';
import { Agent, request } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { LEGACY_TYPES, SUBSCRIBABLE_EVENTS } from '../../domain/webhook/catalog.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { authenticateOverHttp, provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { randomSeed } from '../support/seed.ts';

/**
 * Every operation of /openapi.json, over real HTTP, with random headers, path params, queries
 * and bodies: no reply is a 5xx, every error is `{code, message}` with code = status and a
 * non-blank message, and a 4xx appends no event. The seed is printed at the start; FUZZ_SEED
 * replays a run; FUZZ_RUNS sets the requests per operation.
 */
const SEED = randomSeed('foundation/fuzz');
const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS ?? 12);
const SETTLE_TIMEOUT_MS = 120_000;

const test = suite('fuzz: every operation of the OpenAPI document');
let app: TestApp;
let tenant: TestTenant;
/** Authenticated through the fuzz only: its client id may be locked by wrong secrets. */
let stranger: TestTenant;
let token: string;
let known: { policyId: string; reportId: string };
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

test.before(async () => {
  // No dispatcher: deliveries to the fuzzer's made-up addresses would fail until a subscription
  // is switched off, an event appended in the background, in the middle of some 4xx's check.
  app = await startTestApp({ ROLES: 'api,projector,scheduler', RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ORGANIZATION: '1000000' });
  tenant = await provisionTenant(app);
  stranger = await provisionTenant(app, { name: 'Stranger' });
  token = tenant.token;
  const policy = await app.call('POST', '/credit-policy/policy', { token, body: DEMO_CPF_POLICY });
  const report = await app.call('POST', '/v2/report', { token, body: { document: '12345678909', type: 'cpf', policyId: policy.body.id } });
  await waitForReport(app, token, report.body.id, SETTLE_TIMEOUT_MS);
  known = { policyId: policy.body.id, reportId: report.body.id };
});
test.after(async () => {
  agent.destroy();
  await app?.stop();
});

// ---------------------------------------------------------------- the OpenAPI document

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  pathParams: Array<{ name: string; schema: Schema }>;
  queryParams: Array<{ name: string; schema: Schema }>;
  body: Schema | undefined;
}

function operationsOf(doc: any): Operation[] {
  const resolve = (node: any): any => {
    let current = node;
    for (let hops = 0; current?.$ref && hops < 20; hops++) {
      current = String(current.$ref)
        .replace(/^#\//, '')
        .split('/')
        .reduce((at: any, key) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    }
    return current;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve);
      const of = (where: string) => parameters.filter((p) => p.in === where).map((p) => ({ name: p.name as string, schema: resolve(p.schema) ?? {} }));
      const body = resolve(operation.requestBody)?.content?.['application/json']?.schema;
      operations.push({ method: method.toUpperCase(), path, pathParams: of('path'), queryParams: of('query'), body: body && withRefs(body, resolve) });
    }
  }
  return operations;
}

/** The schema with every $ref replaced by what it names, down to a few levels. */
function withRefs(schema: Schema, resolve: (node: any) => any, depth = 0): Schema {
  const node = resolve(schema);
  if (depth > 8 || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n) => withRefs(n, resolve, depth + 1)) as unknown as Schema;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, typeof v === 'object' && v !== null ? withRefs(v, resolve, depth + 1) : v]));
}

// ---------------------------------------------------------------- values

/** Marks a string the body writer turns into a JSON number no double holds. */
const HUGE_LITERAL = '\u0001HUGE\u0001';
const nastyText = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'é', '😀', '\u0000', '\ud800', '\udfff', '"', '\\', '%', '\n', ' '), maxLength: 8 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', 'x\udc00y', 'null', '[]', '{}', '1e400', '../../etc/passwd', "' or 1=1 --", '%00', '<script>'),
  fc.integer({ min: 1, max: 4 }).map((k) => 'x'.repeat(10 ** k)),
);
const nastyNumber = fc.oneof(
  fc.constantFrom(3e9, -3e9, 1e308, -1e308, 2 ** 31, 2 ** 53 + 2, -0, 0.5, 99999999999999999999, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE),
  fc.constant(HUGE_LITERAL),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const deepValue = fc.integer({ min: 60, max: 300 }).map((depth) => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
});
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyText,
  nastyNumber,
  fc.constantFrom(null, true, false, [], {}),
  deepValue,
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(nastyText, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** Values a route can act on, so that some requests get past validation into the handlers. */
function plausibleStrings(): fc.Arbitrary<string> {
  return fc.constantFrom(
    known.policyId,
    known.reportId,
    '12345678909',
    '11.222.333/0001-81',
    'cpf',
    'cnpj',
    'pdf',
    'xlsx',
    'http://127.0.0.1:9/hook',
    'https://example.com/hook',
    '2026-01-01T00:00:00.000Z',
    'report.finished',
    'CREDIT_POLICY',
    'BASIC_INFORMATION',
  );
}

/** Mostly the schema's shape, with a nasty value anywhere. */
function fromSchema(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return nastyValue;
  return fc.oneof({ arbitrary: shapedBy(schema, depth), weight: 9 }, { arbitrary: nastyValue, weight: 1 });
}

function shapedBy(schema: Schema, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return fc.oneof(...union.map((s: Schema) => fromSchema(s, depth + 1)));
  if (Array.isArray(schema.allOf)) return fromSchema(Object.assign({}, ...schema.allOf), depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const properties = Object.fromEntries(Object.entries<Schema>(schema.properties ?? {}).map(([k, s]) => [k, fromSchema(s, depth + 1)]));
      const required = (schema.required ?? []).filter((k: string) => k in properties);
      return fc
        .tuple(
          fc.oneof({ arbitrary: fc.record(properties, { requiredKeys: required }), weight: 4 }, fc.record(properties, { requiredKeys: [] })),
          fc.dictionary(fc.constantFrom('organizationId', 'userId', 'extra', '__proto__', 'constructor'), nastyValue, { maxKeys: 2 }),
        )
        .map(([declared, extra]) => ({ ...extra, ...declared }));
    }
    case 'array':
      return fc.array(fromSchema(schema.items, depth + 1), { maxLength: 4 });
    case 'string':
      return fc.oneof(plausibleStrings(), nastyText);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
      return fc.oneof(fc.integer({ min: Math.max(min, -1e6), max: Math.min(max, 1e6) }), fc.constantFrom(min - 1, max + 1, min, max), nastyNumber);
    }
    case 'boolean':
      return fc.boolean();
    default:
      // Open JSON (JSON Logic): a small expression or anything.
      return fc.oneof(fc.constant({ '==': [{ var: 'document.type' }, 'cpf'] }), fc.constant(-50), nastyValue);
  }
}

/** A body each write route accepts, so that a mutation of it reaches the handler's own checks. */
function acceptedBody(operation: Operation): unknown {
  const key = `${operation.method} ${operation.path.replace(/\{[^{}]+\}/g, '{}')}`;
  const bodies: Record<string, unknown> = {
    'POST /credit-policy/policy': DEMO_CPF_POLICY,
    'PUT /credit-policy/policy/{}': { ...DEMO_CPF_POLICY, name: 'Editada' },
    'POST /v2/report': { document: '12345678909', type: 'cpf', policyId: known.policyId, externalId: 'fuzz' },
    'POST /report/{}/export': { format: 'pdf' },
    'POST /report/analyze': { id: known.reportId, approved: true, commentary: 'ok' },
    'POST /report/re-analyze': { id: known.reportId, approved: false, commentary: 'revisto' },
    'POST /webhook': { type: LEGACY_TYPES[0], url: 'http://127.0.0.1:9/hook' },
    'POST /v1/webhook/subscriptions': { url: 'http://127.0.0.1:9/hook', events: SUBSCRIBABLE_EVENTS.slice(0, 2) },
    'PATCH /v1/webhook/subscriptions/{}': { description: 'fuzz' },
    'POST /v1/webhook/subscriptions/{}/replay': { since: '2026-01-01T00:00:00.000Z' },
  };
  return bodies[key];
}

/** The value with one place in it replaced by a nasty value, or dropped. */
function mutated(value: unknown): fc.Arbitrary<unknown> {
  const paths: string[][] = [];
  const stack: Array<[unknown, string[]]> = [[value, []]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    paths.push(path);
    if (node !== null && typeof node === 'object') for (const [k, v] of Object.entries(node)) stack.push([v, [...path, k]]);
  }
  return fc.tuple(fc.constantFrom(...paths), fc.option(nastyValue, { freq: 5 })).map(([path, replacement]) => {
    if (path.length === 0) return replacement;
    const copy = structuredClone(value) as Record<string, unknown>;
    const parent = path.slice(0, -1).reduce<any>((at, k) => at[k], copy);
    if (replacement === null) delete parent[path.at(-1)!];
    else parent[path.at(-1)!] = replacement;
    return copy;
  });
}

function bodyFor(operation: Operation): fc.Arbitrary<unknown> {
  const accepted = acceptedBody(operation);
  const fromDocument = fromSchema(operation.body ?? {});
  if (accepted === undefined) return fromDocument;
  return fc.oneof({ arbitrary: fc.constant(accepted), weight: 1 }, { arbitrary: mutated(accepted), weight: 3 }, { arbitrary: fromDocument, weight: 2 });
}

/** Path and query text: percent-encoded bytes, or raw junk the server must decode itself. */
const percentEncoded = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
function paramText(): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: plausibleStrings().map(percentEncoded), weight: 4 },
    { arbitrary: fc.stringMatching(/^[0-9a-f]{24}$/), weight: 2 },
    { arbitrary: fc.constantFrom('0', '1', '2', '-1', '2147483648', '99999999999999999999', '1e400', '0x10', 'NaN', '%00', '%E0%A4%A', '%', '..', 'a'.repeat(3000)), weight: 2 },
    { arbitrary: nastyText.map(percentEncoded), weight: 1 },
  );
}

// ---------------------------------------------------------------- requests

interface Attempt {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  chunked: boolean;
}

/** The usual value most of the time, so that requests get past one check and meet the next. */
function mostly<T>(usual: T, weight: number, ...others: T[]): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: fc.constant(usual), weight }, { arbitrary: fc.constantFrom(...others), weight: others.length });
}

const contentTypes = mostly<string | undefined>(
  'application/json',
  12,
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  undefined,
);
const contentEncodings = mostly<string | undefined>(undefined, 12, 'identity', 'gzip', 'deflate', 'br', 'gzip-label', 'deflate-label', 'br-label', 'compress', 'GZIP', 'gzip, br');
const authorizations = mostly<string | undefined>('valid', 12, 'lowercase', undefined, 'Bearer x', 'Bearer a.b.c', 'Basic dXNlcjpwYXNz', 'Bearer ' + 'a'.repeat(5000) + '.b.c');
const bodyForms = mostly('json', 10, 'deep', 'truncated', 'empty', 'bytes', 'none');

function encodeBody(text: Buffer, encoding: string | undefined): { bytes: Buffer; header: string | undefined } {
  switch (encoding) {
    case 'gzip':
      return { bytes: gzipSync(text), header: 'gzip' };
    case 'deflate':
      return { bytes: deflateSync(text), header: 'deflate' };
    case 'br':
      return { bytes: brotliCompressSync(text), header: 'br' };
    case 'gzip-label':
    case 'deflate-label':
    case 'br-label':
      return { bytes: text, header: encoding.replace('-label', '') };
    default:
      return { bytes: text, header: encoding };
  }
}

function attemptFor(operation: Operation): fc.Arbitrary<Attempt> {
  const pathValues = fc.tuple(...operation.pathParams.map(() => paramText()));
  const query = fc.record(
    Object.fromEntries(
      operation.queryParams.map((p) => [
        p.name,
        fc.oneof(
          fromSchema(p.schema).map((v) => percentEncoded(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
          paramText(),
        ),
      ]),
    ),
    { requiredKeys: [] },
  );
  const extraQuery = mostly('', 12, '&a=1&a=2', '&%00=%00', '&details=maybe&details=true', `&q=${'x'.repeat(20_000)}`);
  // A declared parameter given twice reaches the route as a list, which its schema never names.
  const repeated = operation.queryParams.length
    ? fc.option(
        fc.tuple(fc.constantFrom(...operation.queryParams.map((p) => p.name)), paramText()).map(([name, value]) => `&${name}=${value}&${name}=${value}`),
        { freq: 4 },
      )
    : fc.constant(null);
  return fc
    .record({
      pathValues: operation.pathParams.length ? pathValues : fc.constant([] as string[]),
      query,
      extraQuery,
      repeated,
      value: bodyFor(operation),
      form: bodyForms,
      deepLevels: fc.integer({ min: 65, max: 100_000 }),
      contentType: contentTypes,
      encoding: contentEncodings,
      authorization: authorizations,
      clientId: mostly<string | undefined>(undefined, 4, 'unknown', 'stranger'),
      chunked: fc.boolean(),
      requestId: mostly<string | undefined>(undefined, 4, 'abc', 'x'.repeat(200), '../\u00e9'),
    })
    .map((r) => {
      let path = operation.path;
      operation.pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, r.pathValues[i]!)));
      const search = Object.entries(r.query)
        .map(([k, v]) => `${k}=${v}`)
        .join('&');
      const extra = `${r.extraQuery}${r.repeated ?? ''}`;
      if (search || extra) path += `?${search}${extra}`;

      const headers: Record<string, string> = {};
      if (r.authorization === 'valid') headers.authorization = 'Bearer VALID';
      else if (r.authorization === 'lowercase') headers.authorization = 'bearer VALID';
      else if (r.authorization) headers.authorization = r.authorization;
      if (r.clientId === 'unknown') headers['service-client-id'] = 'nope';
      if (r.clientId === 'stranger') Object.assign(headers, { 'service-client-id': stranger.clientId, 'service-client-secret': 'wrong' });
      if (r.requestId) headers['x-request-id'] = r.requestId;

      let text: Buffer | undefined;
      if (r.form === 'json') text = Buffer.from((JSON.stringify(r.value) ?? 'null').split(JSON.stringify(HUGE_LITERAL)).join('1e400'));
      else if (r.form === 'deep') text = Buffer.from('['.repeat(r.deepLevels) + ']'.repeat(r.deepLevels));
      else if (r.form === 'truncated') text = Buffer.from((JSON.stringify(r.value) ?? '{}').slice(0, -1));
      else if (r.form === 'empty') text = Buffer.alloc(0);
      else if (r.form === 'bytes') text = Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x22]);
      let body: Buffer | undefined;
      if (text && operation.method !== 'GET') {
        const { bytes, header } = encodeBody(text, r.encoding);
        body = bytes;
        if (header) headers['content-encoding'] = header;
        if (r.contentType) headers['content-type'] = r.contentType;
      }
      return { method: operation.method, path, headers, body, chunked: r.chunked && body !== undefined };
    });
}

function send(attempt: Attempt): Promise<{ status: number; contentType: string; text: string }> {
  return new Promise((resolve, reject) => {
    const headers = Object.fromEntries(Object.entries(attempt.headers).map(([k, v]) => [k, v.replace('VALID', token)]));
    const req = request(app.url + attempt.path, { method: attempt.method, headers, agent, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no reply within 60 s')));
    req.on('error', reject);
    if (attempt.chunked) {
      req.write(attempt.body!.subarray(0, 1));
      req.end(attempt.body!.subarray(1));
    } else req.end(attempt.body);
  });
}

// ---------------------------------------------------------------- what is written

async function eventCount(): Promise<number> {
  const [row] = await app.database.knex('events').count<{ count: string }[]>('* as count');
  return Number(row!.count);
}

/** After a write that was accepted, wait until what it started (report processing) is done. */
async function settle(): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  let last = -1;
  for (;;) {
    const [pending] = await app.database.knex('report_reports').where({ is_finalized: false }).count<{ count: string }[]>('* as count');
    const count = await eventCount();
    if (Number(pending!.count) === 0 && count === last) return;
    if (Date.now() > deadline) assert.unreachable('background work did not settle');
    last = count;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const describe = (a: Attempt) => `${a.method} ${a.path.slice(0, 300)} ${JSON.stringify(a.headers).slice(0, 300)} body(${a.body?.length ?? 0}): ${a.body?.toString('utf8').slice(0, 300) ?? ''}`;

/** The last request and its status: a reply on a kept-alive connection can belong to it. */
let previous = '';
async function check(attempt: Attempt, seen: Map<number, number>): Promise<void> {
  const before = await eventCount();
  const reply = await send(attempt);
  const prev = previous;
  previous = `${reply.status} <- ${describe(attempt)}`;
  seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
  const where = `${reply.status} ${reply.text.slice(0, 200)} <- ${describe(attempt)}`;
  assert.ok(reply.status < 500, `5xx: ${where}`);
  if (reply.status >= 300) {
    assert.match(reply.contentType, /^application\/json/, `not JSON: ${where}`);
    const body = JSON.parse(reply.text);
    assert.is(body.code, reply.status, `code is not the status: ${where}`);
    assert.ok(typeof body.message === 'string' && body.message.trim().length > 0, `no message: ${where}`);
    const after = await eventCount();
    if (after !== before) {
      const appended = await app.database
        .knex('events')
        .orderBy('global_position', 'desc')
        .limit(after - before)
        .select('event_type', 'stream_name');
      assert.unreachable(`a ${reply.status} appended ${JSON.stringify(appended)}: ${where}; the request before it: ${prev}`);
    }
  } else if (attempt.method !== 'GET') {
    if (attempt.path.startsWith('/auth/logout')) token = (await authenticateOverHttp(app, tenant.clientId, tenant.clientSecret)).body.accessToken;
    await settle();
  }
}

test('no 5xx, every error in the error shape, nothing written on a 4xx', async () => {
  const doc = (await app.call('GET', '/openapi.json')).body;
  const operations = operationsOf(doc);
  assert.ok(operations.length >= 30, `only ${operations.length} operations in /openapi.json`);
  const seen = new Map<number, number>();
  for (const [index, operation] of operations.entries()) {
    try {
      await fc.assert(
        fc.asyncProperty(attemptFor(operation), (attempt) => check(attempt, seen)),
        { seed: SEED + index, numRuns: RUNS_PER_OPERATION, endOnFailure: true, includeErrorInReport: true },
      );
    } catch (error) {
      console.error(`fuzz failed on ${operation.method} ${operation.path}: replay with FUZZ_SEED=${SEED} npx tsx scripts/test.ts foundation/fuzz`);
      throw error;
    }
  }
  const statuses = [...seen.keys()];
  assert.ok(
    statuses.some((s) => s < 300),
    `no request got through: ${JSON.stringify([...seen])}`,
  );
  for (const status of [400, 401, 404, 415]) assert.ok(seen.has(status), `no ${status} among ${JSON.stringify([...seen])}`);
});

test.run();

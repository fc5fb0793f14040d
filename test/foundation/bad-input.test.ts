import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { routeTables } from '../../http/modules.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';

/** Inputs found to answer 5xx or an empty body (issue 15, section 3): each is a clear 4xx now. */
const test = suite('bad input: a clear 4xx in the error shape, nothing written');
let app: TestApp;
let tenant: TestTenant;
let policyId: string;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  const created = await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY });
  assert.is(created.status, 200, JSON.stringify(created.body));
  policyId = created.body.id;
});
test.after(async () => {
  await app?.stop();
});

async function eventCount(): Promise<number> {
  const [row] = await app.database.knex('events').count<{ count: string }[]>('* as count');
  return Number(row!.count);
}

/** A raw request, to send what fetch refuses to (no Content-Type, a lying Content-Encoding). */
function send(method: string, path: string, body: Buffer | string | undefined, headers: Record<string, string>, options: { agent?: Agent; chunked?: boolean } = {}) {
  return new Promise<{ status: number; body: any; contentType: string | undefined; connection: string | undefined }>((resolve, reject) => {
    const req = request(app.url + path, { method, headers: { authorization: `Bearer ${tenant.token}`, ...headers }, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // kept as text: the assertion shows what came back
        }
        resolve({ status: res.statusCode!, body: parsed, contentType: res.headers['content-type'], connection: res.headers.connection });
      });
    });
    req.on('error', reject);
    if (options.chunked && body) {
      req.write(body.slice(0, 1));
      req.end(body.slice(1));
    } else req.end(body);
  });
}

/** The reply is `{code, message}` with code = status, and no event was appended. */
async function refused(status: number, run: () => Promise<{ status: number; body: any }>, message?: string | RegExp) {
  const before = await eventCount();
  const reply = await run();
  assert.is(reply.status, status, JSON.stringify(reply.body));
  assert.is(reply.body?.code, status, JSON.stringify(reply.body));
  assert.type(reply.body.message, 'string');
  if (typeof message === 'string') assert.is(reply.body.message, message);
  else if (message) assert.match(reply.body.message, message);
  assert.is(await eventCount(), before, 'nothing appended');
  return reply.body.message as string;
}

const post = (path: string, body: unknown) => () => app.call('POST', path, { token: tenant.token, body });
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('deeply nested JSON: 400 saying how deep a body may go, in a body, in a rule and in an unknown field', async () => {
  await refused(400, post('/credit-policy/policy', nested(100_000)), Messages.jsonTooDeep);
  const rule = { ...DEMO_CPF_POLICY, groups: [{ name: 'G', rules: [{ name: 'R', onFail: 'DENY', condition: 'DEEP' }] }] };
  await refused(400, post('/credit-policy/policy', JSON.stringify(rule).replace('"DEEP"', nested(5_000))), Messages.jsonTooDeep);
  // 64 levels are accepted: the rule nests 59 deep inside the policy.
  const deepest = JSON.stringify({ ...rule, name: 'Fundo' }).replace('"DEEP"', `{"!!":${nested(58)}}`);
  const accepted = await post('/credit-policy/policy', deepest)();
  assert.is(accepted.status, 200, JSON.stringify(accepted.body));
  await refused(400, post('/v2/report', `{"document":"12345678909","type":"cpf","policyId":"${policyId}","extra":${nested(50_000)}}`), Messages.jsonTooDeep);
});

test('a NUL character or a lone surrogate in a body, a query or a path: 400 naming the field', async () => {
  await refused(400, post('/credit-policy/policy', { ...DEMO_CPF_POLICY, name: 'a\u0000b' }), 'name must not contain the NUL character (\\u0000)');
  await refused(400, post('/v2/report', { document: '12345678909', type: 'cpf', policyId, externalId: 'x\u0000' }), 'externalId must not contain the NUL character (\\u0000)');
  const inRule = { ...DEMO_CPF_POLICY, groups: [{ name: 'G', rules: [{ name: 'R', onFail: 'DENY', condition: { '==': [{ var: 'document.type' }, 'c\u0000'] } }] }] };
  await refused(400, post('/credit-policy/policy', inRule), 'groups.0.rules.0.condition.==.1 must not contain the NUL character (\\u0000)');
  await refused(400, post('/v2/report', '{"document":"12345678909","type":"cpf","policyId":"' + policyId + '","externalId":"\\ud800"}'), 'externalId must be well-formed Unicode text');
  await refused(400, () => app.call('GET', '/webhook/findBy?webhookId=%00', { token: tenant.token }), 'webhookId must not contain the NUL character (\\u0000)');
  await refused(400, () => app.call('GET', '/report/0123456789abcdef01234567/section/A%00B', { token: tenant.token }), 'sectionType must not contain the NUL character (\\u0000)');
});

test('numbers beyond what the service keeps: 400 naming the field and its range', async () => {
  await refused(400, () => app.call('GET', `/credit-policy/policy/${policyId}/versions/99999999999999999999`, { token: tenant.token }), 'version must not be greater than 2147483647');
  await refused(400, () => app.call('GET', `/v1/webhook/subscriptions/0123456789abcdef01234567/deliveries?skip=99999999999999999999`, { token: tenant.token }), /^skip must not be greater than/);
  const literal = (value: string) =>
    JSON.stringify({ ...DEMO_CPF_POLICY, groups: [{ name: 'G', rules: [{ name: 'R', onFail: 'DENY', condition: { '<': [{ var: 'PEFIN.count' }, 'N'] } }] }] }).replace('"N"', value);
  await refused(400, post('/credit-policy/policy', literal('1e400')), 'groups.0.rules.0.condition.<.1 must not be greater than 9007199254740991');
  await refused(400, post('/credit-policy/policy', literal('-1e300')), 'groups.0.rules.0.condition.<.1 must not be less than -9007199254740991');
  // A field the body drops is never kept, whatever it holds.
  const dropped = await post('/v2/report', `{"document":"12345678909","type":"cpf","policyId":"${policyId}","extra":[1e400,"\\u0000"]}`)();
  assert.is(dropped.status, 200, JSON.stringify(dropped.body));
  await waitForReport(app, tenant.token, dropped.body.id, 120_000);
});

test('a body that is not what its Content-Encoding says: 400; an encoding we do not speak: 415; a real gzip or br body works', async () => {
  const json = JSON.stringify({ document: '12345678909', type: 'cpf', policyId });
  for (const encoding of ['gzip', 'deflate', 'br']) {
    await refused(400, () => send('POST', '/v2/report', json, { 'content-type': 'application/json', 'content-encoding': encoding }), Messages.bodyNotDecodable);
    await refused(400, () => send('POST', '/credit-policy/policy', JSON.stringify(DEMO_CPF_POLICY), { 'content-type': 'application/json', 'content-encoding': encoding }), Messages.bodyNotDecodable);
  }
  await refused(415, () => send('POST', '/v2/report', json, { 'content-type': 'application/json', 'content-encoding': 'compress' }), Messages.unsupportedContentEncoding);
  await refused(415, () => send('POST', '/v2/report', json, { 'content-type': 'application/json; charset=latin1' }), Messages.unsupportedCharset);
  const gzipped = await send('POST', '/v2/report', gzipSync(json), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  assert.is(gzipped.status, 200, JSON.stringify(gzipped.body));
  await waitForReport(app, tenant.token, gzipped.body.id, 120_000);
  const brotli = await send('POST', '/credit-policy/policy', brotliCompressSync(JSON.stringify({ ...DEMO_CPF_POLICY, name: 'br' })), { 'content-type': 'application/json', 'content-encoding': 'br' });
  assert.is(brotli.status, 200, JSON.stringify(brotli.body));
});

test('a body refused half read leaves a keep-alive connection usable, or closes it: the next request is never reset', async () => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const json = { 'content-type': 'application/json' };
  const next = async () => assert.is((await send('GET', '/credit-policy/policy', undefined, {}, { agent })).status, 200);
  try {
    const notGzip = await send('POST', '/credit-policy/policy', JSON.stringify({ ...DEMO_CPF_POLICY, name: 'x'.repeat(100_000) }), { ...json, 'content-encoding': 'gzip' }, { agent });
    assert.is(notGzip.status, 400);
    await next();
    const tooLarge = await send('POST', '/credit-policy/policy', JSON.stringify({ name: 'x'.repeat(2_000_000) }), json, { agent, chunked: true });
    assert.equal([tooLarge.status, tooLarge.connection], [413, 'close']);
    await next();
  } finally {
    agent.destroy();
  }
});

test('a body without Content-Type, or not JSON: 415, not a misleading validation message', async () => {
  const json = JSON.stringify({ document: '12345678909', type: 'cpf', policyId });
  await refused(415, () => send('POST', '/v2/report', json, {}), Messages.unsupportedMediaType);
  await refused(415, () => send('POST', '/v2/report', json, { 'content-type': 'text/plain' }), Messages.unsupportedMediaType);
  await refused(415, () => send('PUT', `/credit-policy/policy/${policyId}`, json, { 'content-type': 'application/x-www-form-urlencoded' }), Messages.unsupportedMediaType);
  // No body at all is not a media type question: the fields are missing.
  await refused(400, () => send('POST', '/v2/report', undefined, {}), /^document should not be empty/);
});

test('a request line or headers too large: 431 in the error shape, not an empty reply', async () => {
  const reply = await send('GET', `/credit-policy/policy?documentType=${'x'.repeat(20_000)}`, undefined, {});
  assert.is(reply.status, 431);
  assert.is(reply.contentType, 'application/json; charset=utf-8');
  assert.equal(reply.body, { code: 431, message: Messages.headersTooLarge });
  const header = await send('GET', '/credit-policy/policy', undefined, { 'x-padding': 'y'.repeat(20_000) });
  assert.equal(header.body, { code: 431, message: Messages.headersTooLarge });
  const broken = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1', () => socket.end('NOT HTTP AT ALL\r\n\r\n'));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
  assert.match(broken, /^HTTP\/1\.1 400 /);
  assert.equal(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4)), { code: 400, message: Messages.malformedRequest });
});

test('a client still sending an oversized request reads its 431: the connection is not reset under it', async () => {
  const outcome = await new Promise<{ reply: string; error: string | null }>((resolve) => {
    // Half-open: keep sending after the answer, as an HTTP client writing its body does.
    const socket = connect({ port: Number(new URL(app.url).port), host: '127.0.0.1', allowHalfOpen: true });
    let reply = '';
    let error: string | null = null;
    socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ reply, error }));
    socket.write(`POST /credit-policy/policy?q=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 400000\r\n\r\n`);
    let sent = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write('x'.repeat(20_000));
      if (++sent === 20) {
        clearInterval(timer);
        socket.end();
      }
    }, 10);
  });
  assert.is(outcome.error, null, 'no reset while sending');
  assert.match(outcome.reply, /^HTTP\/1\.1 431 /);
  assert.equal(JSON.parse(outcome.reply.slice(outcome.reply.indexOf('\r\n\r\n') + 4)), { code: 431, message: Messages.headersTooLarge });
});

test('a body past the limit, sent whole by a real client, reads its 413 every time: the connection is never reset under it', async () => {
  // 24 MB, far past BODY_LIMIT (1 MB): the client is still writing when the refusal is decided.
  const body = Buffer.from(JSON.stringify({ name: 'x'.repeat(24 * 1024 * 1024) }));
  const expected = { code: 413, message: Messages.bodyTooLarge };
  for (let i = 0; i < 4; i++) {
    const declared = await send('POST', '/credit-policy/policy', body, { 'content-type': 'application/json' });
    assert.equal([declared.status, declared.body], [413, expected], `Content-Length, try ${i + 1}`);
    const chunked = await send('POST', '/credit-policy/policy', body, { 'content-type': 'application/json' }, { chunked: true });
    assert.equal([chunked.status, chunked.body], [413, expected], `chunked, try ${i + 1}`);
    const reply = await fetch(`${app.url}/credit-policy/policy`, { method: 'POST', body, headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' } });
    assert.equal([reply.status, await reply.json()], [413, expected], `fetch, try ${i + 1}`);
    // A client that reads only once its whole request is out (Python's http.client does): a
    // connection closed under it with its bytes unread is reset, and the reset drops the answer.
    const late = await new Promise<{ reply: string; error: string | null }>((resolve) => {
      const socket = connect({ port: Number(new URL(app.url).port), host: '127.0.0.1' });
      socket.pause();
      let text = '';
      let error: string | null = null;
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
      socket.on('close', () => resolve({ reply: text, error }));
      socket.write(`POST /credit-policy/policy HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body, () => socket.resume());
    });
    assert.is(late.error, null, `write then read, try ${i + 1}: no reset`);
    assert.match(late.reply, /^HTTP\/1\.1 413 /);
    assert.equal(JSON.parse(late.reply.slice(late.reply.indexOf('\r\n\r\n') + 4)), expected);
  }
});

test('every number a route takes, in its path, query or body, has a range', () => {
  const unbounded: string[] = [];
  for (const spec of routeTables.flatMap((table) => table.routes)) {
    for (const [part, schema] of Object.entries({ params: spec.params, query: spec.query, body: spec.body })) {
      const stack: Array<[unknown, string]> = [[schema, part]];
      while (stack.length) {
        const [node, where] = stack.pop()!;
        if (node === null || typeof node !== 'object') continue;
        const { type, minimum, maximum } = node as Record<string, unknown>;
        if ((type === 'integer' || type === 'number') && (typeof minimum !== 'number' || typeof maximum !== 'number')) unbounded.push(`${spec.method} ${spec.path} ${where}`);
        for (const [key, child] of Object.entries(node)) stack.push([child, `${where}.${key}`]);
      }
    }
  }
  assert.equal(unbounded, []);
});

test('a method no route knows: the error shape too', async () => {
  const reply = await send('PROPFIND', '/v2/report', undefined, {});
  assert.equal(reply.body, { code: 501, message: Messages.methodNotImplemented });
});

test.run();

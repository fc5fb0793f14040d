import bunyan from 'bunyan';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { loadConfig } from '../../config/index.ts';
import { createLogger } from '../../service/infrastructure.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

/** Every line the service's own logger writes, as text: what an operator's log store would receive. */
const lines: string[] = [];
const records = () => lines.map((line) => JSON.parse(line) as Record<string, any>);
const log = createLogger(loadConfig({ LOG_LEVEL: 'fatal' }));
log.addStream({
  level: 'debug',
  stream: new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  }),
});

const test = suite('logs: who asked on every request line, processing milestones, no secrets');
let app: TestApp;
let tenant: TestTenant;
let receiver: Server;
let receiverUrl: string;

test.before(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(req.url === '/fail' ? 500 : 200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '50ms,50ms,50ms' }, { log });
  tenant = await provisionTenant(app);
});
test.after(async () => {
  await app?.stop();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const requestLines = (route: string) => records().filter((r) => r.msg === 'request' && r.route === route);

test('authenticated request lines carry request id, organization and client; tokens and client secrets never appear', async () => {
  const reply = await app.call('GET', '/auth/session', { token: tenant.token, headers: { 'x-request-id': 'req-logging-1' } });
  assert.is(reply.status, 200);
  const line = requestLines('/auth/session').find((r) => r.requestId === 'req-logging-1');
  assert.ok(line, 'request line');
  assert.is(line!.organizationId, tenant.organizationId);
  assert.is(line!.credentialId, tenant.credentialId);
  assert.is(line!.status, 200);
  const text = lines.join('\n');
  assert.not.ok(text.includes(tenant.token), 'bearer token logged');
  assert.not.ok(text.includes(tenant.clientSecret), 'client secret logged');
});

test('a report logs when its processing starts and finishes; its signed download link is logged without the signature', async () => {
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY })).body.id;
  const created = await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '123.456.789-09', type: 'cpf', policyId } });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const reportId = created.body.id;
  await waitForReport(app, tenant.token, reportId);
  const milestones = await eventually(
    async () => {
      const found = records().filter((r) => r.reportId === reportId && ['report processing started', 'report processing finished'].includes(r.msg));
      return found.some((r) => r.msg === 'report processing finished') && found;
    },
    { timeoutMs: 10_000, what: 'report processing lines' },
  );
  // A retried attempt would log its start again: the first line starts, the last one finishes.
  assert.equal([milestones[0]!.msg, milestones.at(-1)!.msg], ['report processing started', 'report processing finished']);
  for (const line of milestones) assert.equal([line.level, line.organizationId], [bunyan.INFO, tenant.organizationId]);

  const exported = await app.call('POST', `/report/${reportId}/export`, { token: tenant.token, body: { format: 'pdf' } });
  assert.is(exported.status, 200, JSON.stringify(exported.body));
  const link = new URL(exported.body.url);
  const signature = link.searchParams.get('signature')!;
  const download = await app.call('GET', link.pathname + link.search);
  assert.is(download.status, 200);
  const line = requestLines('/report/download/:blobId').at(-1);
  assert.ok(line, 'download request line: its route template');
  assert.is(line!.url, undefined, 'no url as sent');
  assert.not.ok(lines.join('\n').includes(signature), 'signature logged');
});

test('a recipient opening their link, and a search by CPF: the route template and its ids are logged, never the token, the CPF or the texts sent', async () => {
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Mercado Central Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'foto', kind: 'CUSTOM', title: 'Foto da fachada' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const [link] = created.body.links;
  const page = await app.call('GET', `/c/${link.token}`, { headers: { 'x-request-id': 'req-logging-link' } });
  assert.is(page.status, 200);
  const line = records().find((r) => r.msg === 'request' && r.requestId === 'req-logging-link');
  assert.is(line?.route, '/c/:token');
  const cpf = '52998224725';
  const search = await app.call('GET', `/v2/report?document=${cpf}`, { token: tenant.token, headers: { 'x-request-id': 'req-logging-cpf' } });
  assert.is(search.status, 200);
  assert.is(records().find((r) => r.msg === 'request' && r.requestId === 'req-logging-cpf')?.route, '/v2/report');
  const detail = await app.call('GET', `/v1/collections/${created.body.id}`, { token: tenant.token, headers: { 'x-request-id': 'req-logging-id' } });
  assert.is(detail.status, 200);
  assert.equal(records().find((r) => r.msg === 'request' && r.requestId === 'req-logging-id')?.ids, { id: created.body.id }, 'ids are kept');
  const unmatched = await app.call('GET', `/c/${link.token}/nowhere/else?cpf=${cpf}`, { headers: { 'x-request-id': 'req-logging-404' } });
  assert.is(unmatched.status, 404);
  assert.is(records().find((r) => r.msg === 'request' && r.requestId === 'req-logging-404')?.route, '/c/:value/nowhere/else');
  // The invitation went to the messaging outbox (no SMTP here): its line names the message, not its text.
  await eventually(async () => records().some((r) => r.msg === 'message written to the sandbox messaging outbox (not sent)'), { timeoutMs: 10_000, what: 'outbox line' });
  const text = lines.join('\n');
  assert.not.ok(text.includes(link.token), 'recipient token logged');
  assert.not.ok(text.includes(cpf), 'CPF logged');
  assert.not.ok(text.includes('ana@example.com'), 'address logged');
});

test('webhook deliveries log when they are made and when they fail; the signing secret never appears', async () => {
  const subscribe = (path: string) => app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: `${receiverUrl}${path}`, events: ['report.finished'] } });
  const good = await subscribe('/ok');
  const bad = await subscribe('/fail');
  assert.is(good.status, 201);
  for (const id of [good.body.id, bad.body.id]) assert.is((await app.call('POST', `/v1/webhook/subscriptions/${id}/ping`, { token: tenant.token })).status, 202);
  const delivered = await eventually(async () => records().find((r) => r.msg === 'webhook delivered' && r.subscriptionId === good.body.id), { timeoutMs: 10_000, what: 'delivered line' });
  assert.equal([delivered.level, delivered.organizationId, delivered.event, delivered.statusCode], [bunyan.INFO, tenant.organizationId, 'ping', 200]);
  const failed = await eventually(async () => records().find((r) => r.msg === 'webhook delivery failed' && r.subscriptionId === bad.body.id), { timeoutMs: 10_000, what: 'failed line' });
  assert.equal([failed.organizationId, failed.statusCode, failed.next], [tenant.organizationId, 500, 'retry']);
  const text = lines.join('\n');
  for (const secret of [good.body.secret, bad.body.secret]) assert.not.ok(text.includes(secret), 'signing secret logged');
});

test('serializers blank secrets whatever the line: links, headers, errors, secret fields', () => {
  const before = lines.length;
  log.info(
    {
      url: 'https://api.example.com/report/download/abc?expires=1700000000&signature=deadbeef',
      headers: { authorization: 'Bearer aaa.bbb.ccc', 'service-client-secret': 'shh', 'content-type': 'application/json' },
      err: new Error('POST https://user:hunter2@hooks.example.com/in?token=t0k3n failed'),
      secret: 'whsec_1',
      apiKey: 'key-1',
      clientSecret: 'cs-1',
      error: 'connect ECONNREFUSED https://hooks.example.com/in?api_key=k3y',
    },
    'probe',
  );
  const [line] = lines.slice(before);
  for (const secret of ['deadbeef', 'aaa.bbb.ccc', 'shh', 'hunter2', 't0k3n', 'whsec_1', 'key-1', 'cs-1', 'k3y']) assert.not.ok(line!.includes(secret), secret);
  const record = JSON.parse(line!);
  assert.is(record.url, 'https://api.example.com/report/download/abc?expires=1700000000&signature=[REDACTED]');
  assert.is(record.headers['content-type'], 'application/json');
  assert.match(record.err.message, /^POST https:\/\/\[REDACTED\]@hooks\.example\.com\/in\?token=\[REDACTED\] failed$/);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Messages } from '../../domain/shared/messages.ts';
import { LEGACY_TYPES } from '../../domain/webhook/catalog.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { appendReportEvent, attemptsOf, deliveriesOf, deliveriesSettled, outboxCaughtUp } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
}
const test = suite<Ctx>('webhook: legacy typed subscriptions over HTTP');

test.before(async (ctx) => {
  ctx.app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms' });
  ctx.tenant = await provisionTenant(ctx.app);
  ctx.receiver = await startReceiver((request) => {
    if (request.path.startsWith('/status/')) return { status: Number(request.path.split('/')[2]) };
    return { status: 200 };
  });
});
test.after(async (ctx) => {
  await ctx.receiver.close();
  await ctx.app.stop();
});

const subscribe = (ctx: Ctx, body: unknown, token = ctx.tenant.token) => ctx.app.call('POST', '/webhook', { token, body });

test('POST /webhook sends the test message first, then answers the subscription object', async (ctx) => {
  const before = ctx.receiver.received.length;
  const reply = await subscribe(ctx, { type: 'REPORT_STATUS', url: `${ctx.receiver.url}/hooks/a`, apiKey: 'key-123', organizationId: 'ignored' });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(Object.keys(reply.body), ['id', 'type', 'url', 'apiKey', 'organizationId', 'createdAt', 'updatedAt']);
  assert.match(reply.body.id, /^[0-9a-f]{24}$/);
  assert.is(reply.body.organizationId, ctx.tenant.organizationId);
  assert.is(reply.body.apiKey, 'key-123');
  const test = ctx.receiver.received[before]!;
  assert.is(test.path, '/hooks/a');
  assert.is(test.headers['api-key'], 'key-123');
  assert.is(JSON.parse(test.body).message, WebhookMessages.testMessage);
});

test('a non-2xx test answer, a bad type, a missing or bad url all give 400 exactly URL de webhook inválida., why in detail', async (ctx) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ type: 'REPORT', url: `${ctx.receiver.url}/status/500` }, 'O teste enviado à URL foi respondido com HTTP 500; é preciso um 2xx.'],
    [{ type: 'REPORT', url: `${ctx.receiver.url}/status/302` }, 'O teste enviado à URL foi respondido com redirecionamento (HTTP 302), que não é seguido.'],
    [{ type: 'REPORT', url: `${ctx.receiver.url}/status/404` }, 'O teste enviado à URL foi respondido com HTTP 404; é preciso um 2xx.'],
    [{ type: 'NOT_A_TYPE', url: `${ctx.receiver.url}/ok` }, `O tipo precisa ser um de: ${LEGACY_TYPES.join(', ')}.`],
    [{ type: 'REPORT' }, 'Informe a url.'],
    [{}, 'Informe a url.'],
    [{ type: 'REPORT', url: 'not a url' }, 'O texto informado não é uma URL absoluta.'],
    [{ type: 'REPORT', url: 'ftp://files.example.com/in' }, 'A URL precisa começar com http:// ou https://.'],
    [{ type: 'REPORT', url: 'https://user:pw@hooks.example.com/in' }, 'A URL não pode conter usuário e senha.'],
    [{ type: 'REPORT', url: 'http://hooks.example.com:0/in' }, 'A porta da URL precisa estar entre 1 e 65535.'],
    [{ type: 'REPORT', url: 'http://127.0.0.1:1/closed' }, 'O servidor da URL recusou a conexão.'],
    // .invalid never resolves (RFC 2606).
    [{ type: 'REPORT', url: 'http://hooks.invalid/in' }, 'O nome do servidor da URL não foi encontrado no DNS.'],
  ];
  for (const [body, reason] of cases) {
    const reply = await subscribe(ctx, body);
    assert.equal([reply.status, reply.body], [400, { code: 400, message: Messages.invalidWebhookUrl, detail: reason }], JSON.stringify(body));
  }
  const list = await ctx.app.call('GET', '/webhook/findBy', { token: ctx.tenant.token });
  assert.is(list.body.length, 1, 'no refused registration was saved');
});

test('GET /webhook/findBy is always an array; an empty webhookId is 400', async (ctx) => {
  const other = await provisionTenant(ctx.app);
  const mine = await subscribe(ctx, { type: 'CREDIT_POLICY', url: `${ctx.receiver.url}/two` });
  const all = await ctx.app.call('GET', '/webhook/findBy', { token: ctx.tenant.token });
  assert.is(all.status, 200);
  assert.ok(all.body.some((s: { id: string }) => s.id === mine.body.id));
  const one = await ctx.app.call('GET', `/webhook/findBy?webhookId=${mine.body.id}`, { token: ctx.tenant.token });
  assert.equal(one.body, [mine.body]);
  assert.equal((await ctx.app.call('GET', '/webhook/findBy?webhookId=nope', { token: ctx.tenant.token })).body, []);
  assert.equal((await ctx.app.call('GET', `/webhook/findBy?webhookId=${mine.body.id}`, { token: other.token })).body, []);
  const empty = await ctx.app.call('GET', '/webhook/findBy?webhookId=', { token: ctx.tenant.token });
  assert.equal([empty.status, empty.body], [400, { code: 400, message: 'id should not be empty' }]);
  assert.is((await ctx.app.call('GET', '/webhook/findBy')).status, 401);
});

test('DELETE /webhook/{id} answers the removed subscription; unknown or foreign ids are 404', async (ctx) => {
  const created = await subscribe(ctx, { type: 'OPTIN', url: `${ctx.receiver.url}/optin` });
  const other = await provisionTenant(ctx.app);
  const foreign = await ctx.app.call('DELETE', `/webhook/${created.body.id}`, { token: other.token });
  assert.equal([foreign.status, foreign.body], [404, { code: 404, message: WebhookMessages.recordToDeleteNotFound }]);
  const removed = await ctx.app.call('DELETE', `/webhook/${created.body.id}`, { token: ctx.tenant.token });
  assert.is(removed.status, 200);
  assert.equal({ ...removed.body, updatedAt: created.body.updatedAt }, created.body);
  const again = await ctx.app.call('DELETE', `/webhook/${created.body.id}`, { token: ctx.tenant.token });
  assert.is(again.status, 404);
  assert.is((await ctx.app.call('DELETE', '/webhook/123', { token: ctx.tenant.token })).status, 400);
});

test('report events reach their legacy types with the envelope and the api-key header', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const receiver = await startReceiver();
  try {
    for (const type of ['REPORT_STATUS', 'CREDIT_POLICY', 'REPORT_EXPORTED', 'REPORT_FINISHED']) {
      const reply = await subscribe(ctx, { type, url: `${receiver.url}/${type}`, apiKey: `key-${type}` }, tenant.token);
      assert.is(reply.status, 200);
    }
    const tests = receiver.received.length;
    const facts = await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId, status: 'DENIED' });
    await appendReportEvent(ctx.app, 'CreditPolicyEvaluated', { organizationId: tenant.organizationId, reportId: facts.reportId });
    await appendReportEvent(ctx.app, 'ReportExportFailed', { organizationId: tenant.organizationId, reportId: facts.reportId });
    await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId, reportId: facts.reportId });
    // Another organization's report never reaches this tenant's subscriptions.
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: ctx.tenant.organizationId });
    const got = (await receiver.waitFor(tests + 4)).slice(tests);
    await deliveriesSettled(ctx.app, tenant.organizationId);
    assert.is(receiver.received.length, tests + 4);
    const byPath = new Map(got.map((r) => [r.path, r]));
    const status = byPath.get('/REPORT_STATUS')!;
    assert.is(status.headers['api-key'], 'key-REPORT_STATUS');
    const envelope = JSON.parse(status.body);
    assert.equal(Object.keys(envelope), ['organizationId', 'webhookType', 'data']);
    assert.is(envelope.organizationId, tenant.organizationId);
    assert.is(envelope.webhookType, 'REPORT_STATUS');
    for (const field of ['reportId', 'document', 'type', 'status', 'policyStatus', 'score', 'externalId']) assert.ok(field in envelope.data, field);
    assert.is(envelope.data.status, 'DENIED');
    assert.is(JSON.parse(byPath.get('/REPORT_EXPORTED')!.body).webhookType, 'REPORT_EXPORTED');
    assert.is(JSON.parse(byPath.get('/CREDIT_POLICY')!.body).webhookType, 'CREDIT_POLICY');
    assert.is(JSON.parse(byPath.get('/REPORT_FINISHED')!.body).data.reportId, facts.reportId);
  } finally {
    await receiver.close();
  }
});

test('a report whose processing failed reaches REPORT_STATUS with status FAILED, not REPORT_FINISHED', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const receiver = await startReceiver();
  try {
    for (const type of ['REPORT_STATUS', 'REPORT_FINISHED']) {
      assert.is((await subscribe(ctx, { type, url: `${receiver.url}/${type}` }, tenant.token)).status, 200);
    }
    const tests = receiver.received.length;
    const facts = await appendReportEvent(ctx.app, 'ReportProcessingFailed', {
      organizationId: tenant.organizationId,
      status: 'FAILED',
      reason: 'gave up',
      attempts: 5,
      failedAt: new Date().toISOString(),
    });
    // A later event of the same tenant to REPORT_FINISHED shows the failure was not sent there first.
    await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId });
    const got = (await receiver.waitFor(tests + 2)).slice(tests);
    await deliveriesSettled(ctx.app, tenant.organizationId);
    assert.is(receiver.received.length, tests + 2);
    const status = got.find((r) => r.path === '/REPORT_STATUS')!;
    const envelope = JSON.parse(status.body);
    assert.is(envelope.webhookType, 'REPORT_STATUS');
    assert.equal([envelope.data.reportId, envelope.data.status, envelope.data.attempts], [facts.reportId, 'FAILED', 5]);
    assert.is.not(JSON.parse(got.find((r) => r.path === '/REPORT_FINISHED')!.body).data.reportId, facts.reportId);
  } finally {
    await receiver.close();
  }
});

test('an apiKey is kept sealed and hashed, never plain: reads hide it, deliveries send it, old plain events still deliver', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const receiver = await startReceiver();
  try {
    const created = await subscribe(ctx, { type: 'REPORT_STATUS', url: `${receiver.url}/new`, apiKey: 'plain-key-abcdef' }, tenant.token);
    assert.is(created.body.apiKey, 'plain-key-abcdef', 'the creation reply echoes what was sent');
    const stored = await ctx.app.database
      .knex('events')
      .where({ stream_name: `webhook-${created.body.id}` })
      .first();
    assert.not.ok(JSON.stringify(stored.data).includes('plain-key-abcdef'));
    assert.match(stored.data.apiKeyHash, /^hmac-sha256:[0-9a-f]{64}$/);
    assert.is(stored.data.apiKey, undefined);
    const listed = await ctx.app.call('GET', `/webhook/findBy?webhookId=${created.body.id}`, { token: tenant.token });
    assert.is(listed.body[0].apiKey, '********');

    // A subscription created before apiKeys were sealed: its event holds the key in plain text.
    const oldId = 'f'.repeat(24);
    await ctx.app.app.store.appendToStream(`webhook-${oldId}`, [
      {
        type: 'WebhookSubscriptionCreated',
        data: {
          subscriptionId: oldId,
          organizationId: tenant.organizationId,
          family: 'legacy',
          legacyType: 'REPORT_STATUS',
          url: `${receiver.url}/old`,
          apiKey: 'old-plain-key',
          events: [],
          description: null,
          sealedSecret: null,
          createdBy: tenant.userId,
          createdAt: new Date().toISOString(),
        },
      },
    ]);
    const row = await eventually(() => ctx.app.database.knex('webhook_outbox_targets').where({ id: oldId }).first(), { timeoutMs: 10_000, what: 'old subscription in the outbox' });
    assert.is.not(row.api_key, 'old-plain-key', 'upcast on read: the read tables get it sealed');
    const before = receiver.received.length;
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    const got = new Map((await receiver.waitFor(before + 2)).slice(before).map((r) => [r.path, r]));
    assert.is(got.get('/new')!.headers['api-key'], 'plain-key-abcdef');
    assert.is(got.get('/old')!.headers['api-key'], 'old-plain-key');
  } finally {
    await receiver.close();
  }
});

test('REPORT and REPORT_FINISHED go only for reports created after the subscription', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const receiver = await startReceiver();
  try {
    const before = new Date(Date.now() - 60_000).toISOString();
    for (const type of ['REPORT', 'REPORT_FINISHED']) await subscribe(ctx, { type, url: `${receiver.url}/${type}` }, tenant.token);
    const tests = receiver.received.length;
    const old = await appendReportEvent(ctx.app, 'ReportSectionUpdated', { organizationId: tenant.organizationId, reportCreatedAt: before });
    await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId, reportId: old.reportId, reportCreatedAt: before });
    const fresh = await appendReportEvent(ctx.app, 'ReportSectionUpdated', { organizationId: tenant.organizationId });
    await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId, reportId: fresh.reportId });
    const got = (await receiver.waitFor(tests + 2)).slice(tests);
    await deliveriesSettled(ctx.app, tenant.organizationId);
    assert.is(receiver.received.length, tests + 2, 'nothing for the older report');
    assert.ok(got.every((r) => JSON.parse(r.body).data.reportId === fresh.reportId));
  } finally {
    await receiver.close();
  }
});

test('legacy retries: network, 5xx, 408, 425 and 429 up to 3 times; other 4xx and 3xx not at all', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  let answers: number[] = [];
  const receiver = await startReceiver((request) => (request.headers['x-service-delivery'] ? { status: answers.shift() ?? 200 } : { status: 200 }));
  try {
    const sub = await subscribe(ctx, { type: 'REPORT_STATUS', url: receiver.url }, tenant.token);
    for (const [sequence, expectedAttempts, expectedStatus] of [
      [[500, 503, 429, 408], 4, 'failed'],
      [[425, 200], 2, 'succeeded'],
      [[404], 1, 'failed'],
      [[301], 1, 'failed'],
    ] as Array<[number[], number, string]>) {
      answers = [...sequence];
      const before = (await deliveriesOf(ctx.app, sub.body.id)).length;
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      const delivery = await eventually(
        async () => {
          const all = await deliveriesOf(ctx.app, sub.body.id);
          return all.length > before && all.at(-1)!.status !== 'pending' && all.at(-1)!;
        },
        { timeoutMs: 10_000, what: `delivery after ${sequence}` },
      );
      assert.is(delivery.status, expectedStatus, String(sequence));
      assert.is(delivery.attempts, expectedAttempts, String(sequence));
      const attempts = await attemptsOf(ctx.app, delivery.id);
      assert.equal(
        attempts.map((a) => a.status_code),
        sequence.slice(0, expectedAttempts),
      );
    }
  } finally {
    await receiver.close();
  }
});

test('a legacy subscription deleted stops its deliveries at once', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const receiver = await startReceiver((request) => ({ status: request.headers['x-service-delivery'] ? 503 : 200 }));
  try {
    const sub = await subscribe(ctx, { type: 'REPORT_STATUS', url: receiver.url }, tenant.token);
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    await receiver.waitFor(2);
    const removed = await ctx.app.call('DELETE', `/webhook/${sub.body.id}`, { token: tenant.token });
    assert.is(removed.status, 200);
    const repliedAt = Date.now();
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    // Past the delete and the new event: the retry is canceled and no row was made for the event.
    await outboxCaughtUp(ctx.app);
    // An attempt already on the wire when the delete committed cannot be recalled; none may start after the reply.
    assert.ok(
      receiver.received.every((r) => r.at <= repliedAt + 20),
      'no retry and no new delivery after the delete',
    );
    const [delivery, ...none] = await deliveriesOf(ctx.app, sub.body.id);
    assert.is(delivery!.status, 'canceled');
    assert.is(none.length, 0);
    const attempts = await attemptsOf(ctx.app, delivery!.id);
    assert.ok(attempts.every((a) => a.started_at.getTime() <= repliedAt));
  } finally {
    await receiver.close();
  }
});

test('GET /webhook/{id}/deliveries: the same delivery log as named subscriptions (ours)', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  // The test POST passes; the delivery's first attempt gets a 503, its retry a 200.
  const receiver = await startReceiver((_request, index) => (index === 1 ? { status: 503 } : { status: 200 }));
  try {
    const created = await subscribe(ctx, { type: 'REPORT_STATUS', url: `${receiver.url}/in` }, tenant.token);
    assert.is(created.status, 200, JSON.stringify(created.body));
    const id = created.body.id;
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    const log = await eventually(async () => {
      const reply = await ctx.app.call('GET', `/webhook/${id}/deliveries`, { token: tenant.token });
      return reply.status === 200 && reply.body.items[0]?.status === 'succeeded' ? reply.body : undefined;
    });
    assert.is(log.total, 1);
    const [delivery] = log.items;
    assert.equal([delivery.subscriptionId, delivery.event, delivery.attempts, delivery.lastStatusCode, delivery.nextAttemptAt], [id, 'REPORT_STATUS', 2, 200, null]);
    assert.equal(
      delivery.attemptLog.map((a: { statusCode: number; outcome: string }) => [a.statusCode, a.outcome]),
      [
        [503, 'http'],
        [200, 'succeeded'],
      ],
    );
    assert.ok(delivery.attemptLog.every((a: { durationMs: number; at: string }) => a.durationMs >= 0 && a.at));
    const failedOnly = await ctx.app.call('GET', `/webhook/${id}/deliveries?status=failed`, { token: tenant.token });
    assert.equal(failedOnly.body, { total: 0, items: [] });
    const foreign = await ctx.app.call('GET', `/webhook/${id}/deliveries`, { token: ctx.tenant.token });
    assert.is(foreign.status, 404);
    assert.is((await ctx.app.call('GET', '/webhook/123/deliveries', { token: tenant.token })).status, 400);
    // A bad status however it comes (long, repeated into a list) is named, never an empty message.
    const badStatus = { code: 400, message: 'status must be one of the following values: pending, succeeded, failed, canceled' };
    for (const query of [`status=${'x'.repeat(2000)}`, 'status=failed&status=pending', `status=${'x'.repeat(2000)}&status=y`]) {
      const reply = await ctx.app.call('GET', `/webhook/${id}/deliveries?${query}`, { token: tenant.token });
      assert.equal([reply.status, reply.body], [400, badStatus], query.slice(0, 40));
    }
  } finally {
    await receiver.close();
  }
});

test.run();

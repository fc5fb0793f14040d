import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Messages } from '../../domain/shared/messages.ts';
import { WebhookMessages } from '../../domain/webhook/messages.ts';
import { READ_ALL_STATEMENT } from '../../platform/eventstore/postgres-sql.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { appendReportEvent, deliveriesOf, deliveriesSettled } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('webhook: named subscriptions, signed deliveries');

test.before(async (ctx) => {
  ctx.app = await startTestApp({ WEBHOOK_RETRY_DELAYS: '100ms,200ms,300ms', WEBHOOK_SECRET_OVERLAP_SECONDS: '3600' });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app.stop();
});

const BASE = '/v1/webhook/subscriptions';

async function subscribe(ctx: Ctx, url: string, events = ['report.status.changed'], tenant = ctx.tenant) {
  const reply = await ctx.app.call('POST', BASE, { token: tenant.token, body: { url, events } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body as { id: string; secret: string; status: string };
}

test('GET /v1/webhook/events returns the catalog; without a webhook permission 403', async (ctx) => {
  const reply = await ctx.app.call('GET', '/v1/webhook/events', { token: ctx.tenant.token });
  assert.is(reply.status, 200);
  assert.equal(
    reply.body.groups.map((g: { title: string }) => g.title),
    ['Relatórios e crédito', 'Documento', 'Cadastro', 'Solicitação', 'Mensagens'],
  );
  assert.equal(reply.body.events.slice(0, 5), ['report.section.updated', 'report.finished', 'report.status.changed', 'credit-policy.evaluated', 'report.exported']);
  assert.is(reply.body.eventLabels['report.status.changed'], 'Status do relatório alterado');
  assert.ok(reply.body.events.includes('collection.message.failed'));
  const plain = await provisionTenant(ctx.app, { permissions: ['can-generate-report'] });
  const denied = await ctx.app.call('GET', '/v1/webhook/events', { token: plain.token });
  assert.equal([denied.status, denied.body], [403, { code: 403, message: Messages.forbidden }]);
  assert.is((await ctx.app.call('GET', '/v1/webhook/events')).status, 401);
});

test('subscription routes need a registry or collection module and can-use-registry-api or can-manage-settings, else 404', async (ctx) => {
  const hidden = { code: 404, message: Messages.resourceNotFound };
  const noModule = await provisionTenant(ctx.app, { modules: ['reports'] });
  const noPermission = await provisionTenant(ctx.app, { permissions: ['can-generate-report'] });
  const settings = await provisionTenant(ctx.app, { modules: ['onboarding'], permissions: ['can-manage-settings'] });
  for (const tenant of [noModule, noPermission]) {
    const reply = await ctx.app.call('GET', BASE, { token: tenant.token });
    assert.equal([reply.status, reply.body], [404, hidden]);
  }
  assert.is((await ctx.app.call('GET', BASE, { token: settings.token })).status, 200);
});

test('creation shows the secret once; reads never show it; validation and 404s', async (ctx) => {
  const created = await subscribe(ctx, 'https://hooks.example.com/in', ['registry.updated', 'report.finished']);
  assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
  assert.is(created.status, 'ACTIVE');
  const read = await ctx.app.call('GET', `${BASE}/${created.id}`, { token: ctx.tenant.token });
  assert.is(read.status, 200);
  assert.not.ok('secret' in read.body);
  assert.not.ok(JSON.stringify(read.body).includes(created.secret));
  const list = await ctx.app.call('GET', BASE, { token: ctx.tenant.token });
  assert.ok(list.body.some((s: { id: string }) => s.id === created.id));
  assert.not.ok(JSON.stringify(list.body).includes('whsec_'));
  const stored = await ctx.app.app.db('webhook_subscriptions').where({ id: created.id }).first();
  assert.not.ok(JSON.stringify(stored).includes(created.secret), 'the table keeps it sealed');
  const events = await ctx.app.app.store.readStream(`webhook-${created.id}`);
  assert.not.ok(JSON.stringify(events.map((e) => e.data)).includes(created.secret), 'the event keeps it sealed');

  const bad = await ctx.app.call('POST', BASE, { token: ctx.tenant.token, body: { url: 'https://x.example', events: ['nope', 'ping'] } });
  assert.equal([bad.status, bad.body.message], [400, `${WebhookMessages.unknownEvent('nope')},${WebhookMessages.unknownEvent('ping')}`]);
  const missing = await ctx.app.call('POST', BASE, { token: ctx.tenant.token, body: {} });
  assert.equal([missing.status, missing.body.message], [400, 'url should not be empty,events should not be empty']);
  const other = await provisionTenant(ctx.app);
  const foreign = await ctx.app.call('GET', `${BASE}/${created.id}`, { token: other.token });
  assert.equal([foreign.status, foreign.body], [404, { code: 404, message: WebhookMessages.subscriptionNotFound }]);
  assert.is((await ctx.app.call('PATCH', `${BASE}/${created.id}`, { token: other.token, body: { url: 'https://evil.example' } })).status, 404);
  assert.is((await ctx.app.call('GET', `${BASE}/not-an-id`, { token: ctx.tenant.token })).status, 400);
  const updated = await ctx.app.call('PATCH', `${BASE}/${created.id}`, { token: ctx.tenant.token, body: { events: ['registry.updated'], description: 'ERP' } });
  assert.equal([updated.body.events, updated.body.description], [['registry.updated'], 'ERP']);
  const version = (await ctx.app.app.store.readStream(`webhook-${created.id}`)).length;
  assert.is((await ctx.app.call('PATCH', `${BASE}/${created.id}`, { token: ctx.tenant.token, body: { url: '' } })).status, 400);
  assert.is((await ctx.app.app.store.readStream(`webhook-${created.id}`)).length, version, 'a refused command appends nothing');
});

test('deliveries carry the envelope and a signature an independent verifier accepts; the id is stable across retries', async (ctx) => {
  let failFirst = true;
  const receiver = await startReceiver(() => {
    if (failFirst) {
      failFirst = false;
      return { status: 500 };
    }
    return { status: 204 };
  });
  try {
    const sub = await subscribe(ctx, `${receiver.url}/signed`);
    const facts = await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: ctx.tenant.organizationId, status: 'MANUAL_ANALYSIS' });
    const [first, second] = await receiver.waitFor(2);
    for (const request of [first!, second!]) {
      assert.ok(receiverAccepts(sub.secret, request.headers, request.body), 'signature verifies');
      assert.is(request.headers['x-service-event'], 'report.status.changed');
      assert.match(String(request.headers['x-service-timestamp']), /^\d{10}$/);
    }
    assert.is(first!.body, second!.body, 'a retry sends the same bytes');
    const envelope = JSON.parse(first!.body);
    assert.equal(Object.keys(envelope), ['id', 'event', 'occurredAt', 'organizationId', 'data']);
    assert.is(envelope.event, 'report.status.changed');
    assert.is(envelope.organizationId, ctx.tenant.organizationId);
    assert.is(envelope.data.reportId, facts.reportId);
    assert.is(first!.headers['x-service-delivery'], envelope.id);
    assert.is(second!.headers['x-service-delivery'], envelope.id);
    assert.not.ok(receiverAccepts('whsec_wrong', first!.headers, first!.body));
  } finally {
    await receiver.close();
  }
});

test('ping ignores the event list; the delivery log shows each attempt; redelivery sends the same id again', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const sub = await subscribe(ctx, receiver.url, ['collection.created']);
    const queued = await ctx.app.call('POST', `${BASE}/${sub.id}/ping`, { token: ctx.tenant.token });
    assert.is(queued.status, 202);
    const [request] = await receiver.waitFor(1);
    assert.is(request!.headers['x-service-event'], 'ping');
    assert.ok(receiverAccepts(sub.secret, request!.headers, request!.body));
    const log = await eventually(async () => {
      const reply = await ctx.app.call('GET', `${BASE}/${sub.id}/deliveries`, { token: ctx.tenant.token });
      return reply.body.items[0]?.status === 'succeeded' && reply.body;
    });
    assert.is(log.total, 1);
    const [entry] = log.items;
    assert.equal([entry.id, entry.event, entry.attempts], [queued.body.deliveryId, 'ping', 1]);
    assert.equal(Object.keys(entry.attemptLog[0]), ['attempt', 'at', 'statusCode', 'durationMs', 'outcome', 'error']);
    assert.equal([entry.attemptLog[0].statusCode, entry.attemptLog[0].outcome], [200, 'succeeded']);
    const again = await ctx.app.call('POST', `/v1/webhook/deliveries/${entry.id}/redeliver`, { token: ctx.tenant.token });
    assert.is(again.status, 202);
    const [, second] = await receiver.waitFor(2);
    assert.is(JSON.parse(second!.body).id, entry.id);
    const detail = await eventually(async () => {
      const reply = await ctx.app.call('GET', `/v1/webhook/deliveries/${entry.id}`, { token: ctx.tenant.token });
      return reply.body.attemptLog.length === 2 && reply.body;
    });
    assert.equal(
      detail.attemptLog.map((a: { attempt: number }) => a.attempt),
      [1, 2],
    );
    const other = await provisionTenant(ctx.app);
    assert.is((await ctx.app.call('POST', `/v1/webhook/deliveries/${entry.id}/redeliver`, { token: other.token })).status, 404);
  } finally {
    await receiver.close();
  }
});

test('rotation: the new secret signs at once, the old one signs X-Service-Signature-Previous during the overlap', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const sub = await subscribe(ctx, receiver.url);
    const rotated = await ctx.app.call('POST', `${BASE}/${sub.id}/rotate-secret`, { token: ctx.tenant.token });
    assert.is(rotated.status, 200);
    assert.ok(rotated.body.secret !== sub.secret);
    const overlapEnds = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
    assert.ok(overlapEnds > 3_590_000 && overlapEnds <= 3_600_000, String(overlapEnds));
    await ctx.app.call('POST', `${BASE}/${sub.id}/ping`, { token: ctx.tenant.token });
    const [request] = await receiver.waitFor(1);
    assert.ok(receiverAccepts(rotated.body.secret, request!.headers, request!.body));
    const previous = { ...request!.headers, 'x-service-signature': request!.headers['x-service-signature-previous'] };
    assert.ok(receiverAccepts(sub.secret, previous, request!.body));
  } finally {
    await receiver.close();
  }
});

test('replay sends again every covered event since a time, with the ids of the first time', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const tenant = await provisionTenant(ctx.app);
    const sub = await subscribe(ctx, receiver.url, ['report.status.changed', 'credit-policy.evaluated'], tenant);
    const since = new Date().toISOString();
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    await appendReportEvent(ctx.app, 'CreditPolicyEvaluated', { organizationId: tenant.organizationId });
    await appendReportEvent(ctx.app, 'ReportSectionUpdated', { organizationId: tenant.organizationId });
    const first = await receiver.waitFor(2);
    await eventually(async () => (await deliveriesOf(ctx.app, sub.id)).every((d) => d.status === 'succeeded'));
    const reply = await ctx.app.call('POST', `${BASE}/${sub.id}/replay`, { token: tenant.token, body: { since } });
    assert.equal([reply.status, reply.body], [202, { deliveries: 2, truncated: false, resumeSince: null }]);
    const all = await receiver.waitFor(4);
    // Both rows sent again and settled: nothing else is queued to arrive later.
    await deliveriesSettled(ctx.app, tenant.organizationId);
    assert.equal(
      (await deliveriesOf(ctx.app, sub.id)).map((d) => [d.status, d.attempts]),
      [
        ['succeeded', 2],
        ['succeeded', 2],
      ],
    );
    assert.is(receiver.received.length, 4);
    const ids = (list: typeof first) => list.map((r) => JSON.parse(r.body).id).sort();
    assert.equal(ids(all.slice(2)), ids(first));
    const bad = await ctx.app.call('POST', `${BASE}/${sub.id}/replay`, { token: tenant.token, body: { since: 'yesterday' } });
    assert.equal([bad.status, bad.body.message], [400, 'since must be a valid ISO 8601 date string']);
  } finally {
    await receiver.close();
  }
});

test('replay goes on over pages without a covered event, to the head, and is not truncated', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const tenant = await provisionTenant(ctx.app);
    const sub = await subscribe(ctx, receiver.url, ['report.status.changed'], tenant);
    const since = new Date().toISOString();
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    // More than two replay pages of events no webhook covers between the two that count.
    const noise = Array.from({ length: 2500 }, (_, i) => ({ type: 'NoiseRecorded', data: { i } }));
    await ctx.app.app.store.appendToStream(`noise-${ctx.app.app.ids.objectId()}`, noise);
    await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
    await receiver.waitFor(2);
    const reply = await ctx.app.call('POST', `${BASE}/${sub.id}/replay`, { token: tenant.token, body: { since } });
    assert.equal([reply.status, reply.body], [202, { deliveries: 2, truncated: false, resumeSince: null }]);
    await receiver.waitFor(4);
  } finally {
    await receiver.close();
  }
});

test("replay from 1970 reads only the organization's own events, through their index: another tenant's are never read", async (ctx) => {
  const receiver = await startReceiver();
  try {
    const [a, b] = [await provisionTenant(ctx.app, { name: 'Tenant A' }), await provisionTenant(ctx.app, { name: 'Tenant B' })];
    const sub = await subscribe(ctx, receiver.url, ['report.status.changed'], b);
    for (let i = 0; i < 40; i++) await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: a.organizationId });
    for (let i = 0; i < 3; i++) await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: b.organizationId });
    await receiver.waitFor(3);
    // What the event store hands back to the replay: every row carrying an event's data.
    const returned: Array<Record<string, unknown>> = [];
    const db = ctx.app.app.db;
    const listener = (response: { rows?: unknown[][] }, query: { options?: { name?: string } }) => {
      if (query.options?.name?.startsWith(READ_ALL_STATEMENT))
        returned.push(...(response.rows ?? []).map((row) => ({ data: row.find((cell) => typeof cell === 'object' && cell !== null && 'organizationId' in cell) })));
    };
    db.on('query-response', listener);
    let reply;
    try {
      reply = await ctx.app.call('POST', `${BASE}/${sub.id}/replay`, { token: b.token, body: { since: '1970-01-01T00:00:00.000Z' } });
    } finally {
      db.off('query-response', listener);
    }
    assert.equal([reply.status, reply.body], [202, { deliveries: 3, truncated: false, resumeSince: null }]);
    const organizations = new Set(returned.flatMap((row) => (row.data ? [(row.data as { organizationId: string }).organizationId] : [])));
    assert.equal([...organizations], [b.organizationId], "only tenant B's events came back from the store");
    assert.ok(returned.length < 40, `${returned.length} rows scanned: not tenant A's 40 events`);
  } finally {
    await receiver.close();
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { appendReportEvent, attemptsOf, deliveriesOf, deliveriesSettled, outboxCaughtUp } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Answer, type Receiver } from '../support/webhook-receiver.ts';

const DELAYS = [100, 200, 300];
const TIMEOUT_MS = 300;

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('webhook: delivery rules against real receivers');

test.before(async (ctx) => {
  ctx.app = await startTestApp({ WEBHOOK_RETRY_DELAYS: DELAYS.map((d) => `${d}ms`).join(','), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS) });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app.stop();
});

const BASE = '/v1/webhook/subscriptions';

async function withReceiver(answer: () => Answer, run: (receiver: Receiver, tenant: TestTenant) => Promise<void>, ctx: Ctx) {
  const receiver = await startReceiver(answer);
  const tenant = await provisionTenant(ctx.app);
  try {
    await run(receiver, tenant);
  } finally {
    await receiver.close();
  }
}

async function subscribe(ctx: Ctx, tenant: TestTenant, url: string) {
  const reply = await ctx.app.call('POST', BASE, { token: tenant.token, body: { url, events: ['report.status.changed'] } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.id as string;
}

async function finishedDelivery(ctx: Ctx, subscriptionId: string) {
  return eventually(
    async () => {
      const [delivery] = await deliveriesOf(ctx.app, subscriptionId);
      return delivery && delivery.status !== 'pending' && delivery;
    },
    { timeoutMs: 10_000, what: 'the delivery to finish' },
  );
}

test('the initial attempt plus 3 retries, after the configured delays, then failed', (ctx) =>
  withReceiver(
    () => ({ status: 500 }),
    async (receiver, tenant) => {
      const id = await subscribe(ctx, tenant, receiver.url);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      const delivery = await finishedDelivery(ctx, id);
      assert.equal([delivery.status, delivery.attempts], ['failed', 4]);
      assert.is(receiver.received.length, 4);
      const gaps = receiver.received.slice(1).map((r, i) => r.at - receiver.received[i]!.at);
      gaps.forEach((gap, i) => assert.ok(gap >= DELAYS[i]! - 5 && gap < DELAYS[i]! + 250, `gap ${i}: ${gap} ms for ${DELAYS[i]} ms`));
    },
    ctx,
  ));

test('a 3xx is a failure and is never followed, not even to the metadata address', (ctx) =>
  withReceiver(
    () => ({ status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } }),
    async (receiver, tenant) => {
      const id = await subscribe(ctx, tenant, receiver.url);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      const delivery = await finishedDelivery(ctx, id);
      assert.equal([delivery.status, delivery.attempts], ['failed', 4]);
      const attempts = await attemptsOf(ctx.app, delivery.id);
      assert.ok(attempts.every((a) => a.outcome === 'redirect' && a.status_code === 302));
      assert.match(attempts[0]!.error!, /redirect not followed/);
    },
    ctx,
  ));

test('an attempt without an answer within WEBHOOK_TIMEOUT_MS is a timeout, and is retried', (ctx) =>
  withReceiver(
    () => 'hang',
    async (receiver, tenant) => {
      const id = await subscribe(ctx, tenant, receiver.url);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      const delivery = await finishedDelivery(ctx, id);
      assert.equal([delivery.status, delivery.attempts], ['failed', 4]);
      const attempts = await attemptsOf(ctx.app, delivery.id);
      assert.ok(attempts.every((a) => a.outcome === 'timeout'));
      assert.ok(attempts.every((a) => a.status_code === null));
    },
    ctx,
  ));

test('20 consecutive failed deliveries turn the subscription off, recorded as an event with the reason', (ctx) =>
  withReceiver(
    () => ({ status: 503 }),
    async (receiver, tenant) => {
      const id = await subscribe(ctx, tenant, receiver.url);
      for (let i = 0; i < 20; i++) await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      const read = await eventually(
        async () => {
          const reply = await ctx.app.call('GET', `${BASE}/${id}`, { token: tenant.token });
          return reply.body.status === 'DISABLED' && reply.body;
        },
        { timeoutMs: 15_000, what: 'the subscription to turn off' },
      );
      assert.is(read.disabledReason, 'CONSECUTIVE_FAILURES');
      const disabled = (await ctx.app.app.store.readStream(`webhook-${id}`)).find((e) => e.type === 'WebhookSubscriptionDisabled')!;
      assert.equal([disabled.data.reason, disabled.data.consecutiveFailures, disabled.data.disabledBy], ['consecutive_failures', 20, null]);
      const attemptsWhenOff = receiver.received.length;
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      // The outbox has seen the new event and every retry left has been claimed and canceled.
      await deliveriesSettled(ctx.app, tenant.organizationId);
      assert.is(receiver.received.length, attemptsWhenOff, 'nothing is sent while off');
      assert.is((await deliveriesOf(ctx.app, id)).length, 20);

      const enabled = await ctx.app.call('POST', `${BASE}/${id}/enable`, { token: tenant.token });
      assert.equal([enabled.status, enabled.body.status, enabled.body.disabledReason], [200, 'ACTIVE', null]);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      await receiver.waitFor(attemptsWhenOff + 1);
    },
    ctx,
  ));

test('a deleted named subscription gets nothing more: pending retries are canceled, new events ignored', (ctx) =>
  withReceiver(
    () => ({ status: 500 }),
    async (receiver, tenant) => {
      const id = await subscribe(ctx, tenant, receiver.url);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      await receiver.waitFor(1);
      const removed = await ctx.app.call('DELETE', `${BASE}/${id}`, { token: tenant.token });
      assert.equal([removed.status, removed.body.status], [200, 'DELETED']);
      const repliedAt = Date.now();
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      // The outbox has passed the delete and the new event: the retry is canceled (never to be
      // claimed again) and no row was made for the event.
      await outboxCaughtUp(ctx.app);
      const deliveries = await deliveriesOf(ctx.app, id);
      assert.equal(
        deliveries.map((d) => d.status),
        ['canceled'],
      );
      assert.ok(
        receiver.received.every((r) => r.at <= repliedAt + 20),
        'nothing after the delete',
      );
      assert.is((await ctx.app.call('GET', `${BASE}/${id}`, { token: tenant.token })).status, 404);
    },
    ctx,
  ));

test('disable stops deliveries at once, and a disabled subscription cannot be replayed', (ctx) =>
  withReceiver(
    () => ({ status: 500 }),
    async (receiver, tenant) => {
      const id = await subscribe(ctx, tenant, receiver.url);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });
      await receiver.waitFor(1);
      const off = await ctx.app.call('POST', `${BASE}/${id}/disable`, { token: tenant.token });
      assert.equal([off.status, off.body.status, off.body.disabledReason], [200, 'DISABLED', 'MANUAL']);
      const count = receiver.received.length;
      // Its retry, claimed while the subscription is off, is canceled instead of sent.
      await eventually(async () => (await deliveriesOf(ctx.app, id))[0]!.status === 'canceled', { what: 'the retry canceled' });
      assert.ok(receiver.received.length <= count + 1, 'at most the attempt already in flight');
      const replay = await ctx.app.call('POST', `${BASE}/${id}/replay`, { token: tenant.token, body: { since: new Date(0).toISOString() } });
      assert.is(replay.status, 409);
    },
    ctx,
  ));

test.run();

const refusing = suite<Ctx>('webhook: internal addresses refused at delivery time (WEBHOOK_ALLOW_PRIVATE_NETWORKS=false)');

refusing.before(async (ctx) => {
  ctx.app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_DELAYS: '50ms,50ms,50ms' });
  ctx.tenant = await provisionTenant(ctx.app);
});
refusing.after(async (ctx) => {
  await ctx.app.stop();
});

refusing('a receiver named localhost gets nothing; the refusal is recorded on the delivery', async (ctx) => {
  const receiver = await startReceiver();
  try {
    // A name is judged when it is resolved, at each delivery.
    for (const url of [`http://localhost:${receiver.port}/`]) {
      const id = await subscribe(ctx, ctx.tenant, url);
      await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: ctx.tenant.organizationId });
      const delivery = await finishedDelivery(ctx, id);
      assert.equal([delivery.status, delivery.attempts], ['failed', 4], url);
      assert.match(delivery.last_error!, /refused range \((loopback|ipv4Mapped)\)/);
      const attempts = await attemptsOf(ctx.app, delivery.id);
      assert.ok(attempts.every((a) => a.outcome === 'refused'));
      await ctx.app.call('DELETE', `${BASE}/${id}`, { token: ctx.tenant.token });
    }
    assert.is(receiver.received.length, 0);
  } finally {
    await receiver.close();
  }
});

refusing('a registration to an internal address is refused with the rule that refuses it', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const refusedBy = async (path: string, body: Record<string, unknown>, reason: string) => {
      const reply = await ctx.app.call('POST', path, { token: ctx.tenant.token, body });
      assert.is(reply.status, 400, JSON.stringify(body));
      assert.equal([reply.body.message, reply.body.detail], [Messages.invalidWebhookUrl, reason], JSON.stringify(body));
    };
    const loopback = 'O endereço de destino é de loopback (a própria máquina).';
    // Legacy: its test POST is refused before it leaves.
    await refusedBy('/webhook', { type: 'REPORT', url: receiver.url }, loopback);
    await refusedBy('/webhook', { type: 'REPORT', url: `http://localhost:${receiver.port}/` }, loopback);
    // Named: an address literal is judged at once.
    const named = (url: string) => ({ url, events: ['report.status.changed'] });
    await refusedBy(BASE, named(receiver.url), loopback);
    await refusedBy(BASE, named('http://10.1.2.3/hook'), 'O endereço de destino é de uma rede privada.');
    await refusedBy(BASE, named('http://169.254.169.254/latest'), 'O endereço de destino é link-local (onde fica o serviço de metadados da nuvem).');
    await refusedBy(BASE, named(`http://[::ffff:127.0.0.1]:${receiver.port}/`), 'O endereço IPv6 de destino carrega um endereço IPv4 (ipv4Mapped), o que não é aceito.');
    await refusedBy(BASE, named('http://[fd00::1]/'), 'O endereço de destino é de uma rede privada IPv6.');
    assert.is(receiver.received.length, 0, 'not even the test POST');
    assert.equal((await ctx.app.call('GET', BASE, { token: ctx.tenant.token })).body.length, 0, 'nothing was saved');
  } finally {
    await receiver.close();
  }
});

refusing.run();

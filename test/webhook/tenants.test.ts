import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { appendReportEvent, deliveriesOf } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const CONCURRENCY = 4;
/** Far longer than the test: an attempt to the hanging receiver is still out when it ends. */
const TIMEOUT_MS = 60_000;
const BASE = '/v1/webhook/subscriptions';

const test = suite<{ app: TestApp }>("webhook: one tenant's failing receiver never holds back another tenant");
test.before(async (ctx) => {
  ctx.app = await startTestApp({
    WEBHOOK_DISPATCH_CONCURRENCY: String(CONCURRENCY),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_RETRY_DELAYS: '50ms,50ms,50ms',
  });
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

async function subscribe(app: TestApp, tenant: TestTenant, url: string): Promise<string> {
  const reply = await app.call('POST', BASE, { token: tenant.token, body: { url, events: ['report.status.changed'] } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body.id;
}

test("a receiver that hangs holds at most half the slots; the other tenant's deliveries and reports go on", async ({ app }) => {
  const stuck = await provisionTenant(app);
  const healthy = await provisionTenant(app, { name: 'Healthy organization' });
  const hanging = await startReceiver(() => 'hang');
  const fine = await startReceiver();
  const receivers: Receiver[] = [hanging, fine];
  try {
    const stuckSub = await subscribe(app, stuck, hanging.url);
    await subscribe(app, healthy, fine.url);
    for (let i = 0; i < 3 * CONCURRENCY; i++) await appendReportEvent(app, 'ReportDecided', { organizationId: stuck.organizationId });
    await eventually(async () => (await deliveriesOf(app, stuckSub)).length === 3 * CONCURRENCY, { timeoutMs: 10_000, what: 'the stuck deliveries' });
    await hanging.waitFor(CONCURRENCY / 2);

    await appendReportEvent(app, 'ReportDecided', { organizationId: healthy.organizationId });
    await fine.waitFor(1);
    const policy = await app.call('POST', '/credit-policy/policy', { token: healthy.token, body: DEMO_CPF_POLICY });
    const report = await app.call('POST', '/v2/report', { token: healthy.token, body: { document: '52998224725', type: 'cpf', policyId: policy.body.id } });
    await waitForReport(app, healthy.token, report.body.id);
    await fine.waitFor(2);

    assert.is(hanging.received.length, CONCURRENCY / 2, 'the hanging tenant holds half the slots, no more');
    assert.ok(
      (await deliveriesOf(app, stuckSub)).every((d) => d.attempts === 0),
      'every attempt to the hanging receiver is still out',
    );
  } finally {
    for (const receiver of receivers) await receiver.close();
  }
});

test('a tenant alone with an answering receiver borrows idle slots beyond its half, never the last one', async ({ app }) => {
  const alone = await provisionTenant(app);
  let open = 0;
  let most = 0;
  // Each answer waits long enough for attempts to overlap, well inside the borrowing window. The
  // count drops just before the answer goes out, so it never counts more than are in flight.
  const slow = await startReceiver(() => {
    most = Math.max(most, ++open);
    setTimeout(() => open--, 150);
    return { status: 200, delayMs: 150 };
  });
  try {
    const sub = await subscribe(app, alone, slow.url);
    const count = 6 * CONCURRENCY;
    for (let i = 0; i < count; i++) await appendReportEvent(app, 'ReportDecided', { organizationId: alone.organizationId });
    await eventually(async () => (await deliveriesOf(app, sub)).filter((d) => d.status === 'succeeded').length === count, { timeoutMs: 20_000, what: 'every delivery' });
    assert.is(most, CONCURRENCY - 1, 'beyond its half of the slots, short of all of them');
  } finally {
    await slow.close();
  }
});

test('deliveries that keep failing end failed, in the log, while the other tenant is served', async ({ app }) => {
  const failing = await provisionTenant(app);
  const healthy = await provisionTenant(app, { name: 'Healthy organization' });
  const erroring = await startReceiver(() => ({ status: 500 }));
  const fine = await startReceiver();
  try {
    const failingSub = await subscribe(app, failing, erroring.url);
    const healthySub = await subscribe(app, healthy, fine.url);
    for (let i = 0; i < 3 * CONCURRENCY; i++) await appendReportEvent(app, 'ReportDecided', { organizationId: failing.organizationId });
    await appendReportEvent(app, 'ReportDecided', { organizationId: healthy.organizationId });
    await fine.waitFor(1);
    const log = await eventually(
      async () => {
        const reply = await app.call('GET', `${BASE}/${failingSub}/deliveries?status=failed&take=100`, { token: failing.token });
        return reply.body.total === 3 * CONCURRENCY ? reply.body : undefined;
      },
      { timeoutMs: 20_000, what: 'every failing delivery to be parked' },
    );
    for (const delivery of log.items) {
      assert.equal([delivery.status, delivery.attempts, delivery.nextAttemptAt, delivery.lastStatusCode], ['failed', 4, null, 500]);
      assert.equal(
        delivery.attemptLog.map((a: { statusCode: number }) => a.statusCode),
        [500, 500, 500, 500],
      );
    }
    assert.is((await deliveriesOf(app, healthySub))[0]!.status, 'succeeded');
  } finally {
    await erroring.close();
    await fine.close();
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { statementsDuring } from '../support/db.ts';
import { provisionTenant } from '../support/identity.ts';
import { eventually, sleep } from '../support/wait.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

/**
 * A longest pause of a second and a retry 4 s after its failure: the idle polls after a claim come
 * 25, 75, 175, 375, 775, 1575, 2575, 3575 and 4575 ms later, so a retry found by polling alone
 * would go out about half a second late, and the wake at its time is told apart.
 */
const IDLE_POLL_MAX_MS = 1000;
const RETRY_MS = 4000;

const test = suite<{ app: TestApp }>('webhook: an idle dispatcher looks for work less and less often, never less than every WEBHOOK_IDLE_POLL_MAX_MS');
test.before(async (ctx) => {
  ctx.app = await startTestApp({ WEBHOOK_RETRY_DELAYS: `${RETRY_MS}ms`, WEBHOOK_IDLE_POLL_MAX_MS: String(IDLE_POLL_MAX_MS) });
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const isClaim = (sql: string) => sql.includes('candidates as (');
test('idle for three seconds, it claims a handful of times, not a hundred and twenty', async ({ app }) => {
  // Fixed waits: the idle pause grows with time, so time is what is under test here.
  await sleep(1000);
  const claims = (await statementsDuring(app.app.db, () => sleep(3000))).filter((s) => isClaim(s.sql)).length;
  assert.ok(claims <= 12, `${claims} claims in 3 s`);
  assert.ok(claims >= 2, `${claims} claims in 3 s: it must still look`);
});

test('a row another process queued is found within the longest pause, and a retry at its time', async ({ app }) => {
  const tenant = await provisionTenant(app);
  let answers = 0;
  const receiver = await startReceiver(() => ({ status: answers++ === 1 ? 503 : 204 }));
  try {
    const created = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: receiver.url, events: ['report.status.changed'] } });
    assert.is(created.status, 201, JSON.stringify(created.body));
    const subscriptionId: string = created.body.id;
    await eventually(async () => (await app.app.db('webhook_outbox_targets').where({ id: subscriptionId }).first()) ?? false, { timeoutMs: 10_000, what: 'the outbox knows the subscription' });
    // Fixed: idle long enough that the pause has grown to WEBHOOK_IDLE_POLL_MAX_MS (the behaviour under test).
    await sleep(2000);
    // As an outbox in another process leaves a row it could not hand over: pending, due now, and
    // no signal to this process.
    const queue = async (id: string) => {
      await app.app.db('webhook_deliveries').insert({
        id,
        subscription_id: subscriptionId,
        organization_id: tenant.organizationId,
        event_id: `other:${id}`,
        event_name: 'report.status.changed',
        family: 'named',
        body: JSON.stringify({ id, event: 'report.status.changed', data: {} }),
        occurred_at: new Date(),
      });
      return Date.now();
    };
    const queuedAt = await queue('dlv_idle_1');
    const [first] = await receiver.waitFor(1, 10_000);
    assert.ok(first!.at - queuedAt <= IDLE_POLL_MAX_MS + 600, `found after ${first!.at - queuedAt} ms`);

    // The second row's first attempt gets a 503; its retry is due 4 s later, and this dispatcher
    // wakes for it rather than waiting out its idle pause.
    await queue('dlv_idle_2');
    const [, failed, retried] = await receiver.waitFor(3, 10_000);
    const late = retried!.at - failed!.at - RETRY_MS;
    assert.ok(late >= 0 && late <= 300, `retry ${late} ms after its time`);
  } finally {
    await receiver.close();
  }
});

test.run();

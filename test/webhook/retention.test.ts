import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { attemptsOf, deliveriesOf } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
}
const test = suite<Ctx>('webhook: the scheduler prunes old attempts, deliveries stay');

test.before(async (ctx) => {
  ctx.receiver = await startReceiver(() => ({ status: 204 }));
  // Every second, so the test sees a run; 30 days of attempts are kept.
  ctx.app = await startTestApp({ WEBHOOK_ATTEMPT_RETENTION_CRON: '* * * * * *', WEBHOOK_ATTEMPT_RETENTION_DAYS: '30' });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app.stop();
  await ctx.receiver.close();
});

test('attempts past the retention are deleted by the scheduler role; newer ones and every delivery row stay', async (ctx) => {
  const subscription = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: `${ctx.receiver.url}/in`, events: ['report.finished'] } });
  assert.is(subscription.status, 201, JSON.stringify(subscription.body));
  for (let i = 0; i < 2; i++) assert.is((await ctx.app.call('POST', `/v1/webhook/subscriptions/${subscription.body.id}/ping`, { token: ctx.tenant.token })).status, 202);
  const deliveries = await eventually(
    async () => {
      const rows = await deliveriesOf(ctx.app, subscription.body.id);
      return rows.length === 2 && rows.every((row) => row.status === 'succeeded') && rows;
    },
    { timeoutMs: 60_000, what: 'both pings delivered' },
  );
  const [old, recent] = deliveries;
  await ctx.app.app
    .db('webhook_delivery_attempts')
    .where({ delivery_id: old!.id })
    .update({ started_at: ctx.app.app.db.raw("now() - interval '31 days'") });

  await eventually(async () => (await attemptsOf(ctx.app, old!.id)).length === 0, { timeoutMs: 60_000, what: 'the old attempt pruned' });
  assert.is((await attemptsOf(ctx.app, recent!.id)).length, 1, 'an attempt within the retention stays');
  assert.equal(
    (await deliveriesOf(ctx.app, subscription.body.id)).map((row) => row.status),
    ['succeeded', 'succeeded'],
    'delivery rows stay',
  );
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookStream } from '../../domain/webhook/decider.ts';
import { webhookSubscriptionsProjection } from '../../projections/webhook/subscriptions-projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

const BASE = '/v1/webhook/subscriptions';

const test = suite<{ app: TestApp }>('webhook: the subscriptions projection applies a batch twice to the same rows');
test.before(async (ctx) => {
  ctx.app = await startTestApp();
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test('a batch applied again (change, secret rotation, disabling), twice, leaves the row as it was', async ({ app }) => {
  const tenant = await provisionTenant(app);
  const created = await app.call('POST', BASE, { token: tenant.token, body: { url: 'https://hooks.example.com/a', events: ['report.status.changed'] } });
  assert.is(created.status, 201);
  const id: string = created.body.id;
  assert.is((await app.call('PATCH', `${BASE}/${id}`, { token: tenant.token, body: { description: 'changed' } })).status, 200);
  // Not idempotent by itself: applied again it would make the new secret the previous one too.
  assert.is((await app.call('POST', `${BASE}/${id}/rotate-secret`, { token: tenant.token, body: {} })).status, 200);
  assert.is((await app.call('POST', `${BASE}/${id}/disable`, { token: tenant.token, body: {} })).status, 200);
  assert.is((await app.call('POST', `${BASE}/${id}/enable`, { token: tenant.token, body: {} })).status, 200);

  const events = await app.app.store.readStream(webhookStream(id));
  assert.is(events.length, 5);
  const rows = () => app.app.db('webhook_subscriptions').where({ id }).select();
  const projected = await eventually(
    async () => {
      const [row] = await rows();
      return row?.version === 4 ? [row] : undefined;
    },
    { timeoutMs: 10_000, what: 'the projection to catch up' },
  );
  assert.ok(projected[0].previous_sealed_secret, 'the rotation kept the previous secret');
  assert.is(projected[0].status, 'active');
  // A parked batch retried after later ones went through: everything but the creation and the enabling.
  const batch = events.slice(1, 4);

  for (let retry = 0; retry < 2; retry++) {
    await app.app.db.transaction((trx) => webhookSubscriptionsProjection.handle(batch, trx));
    assert.equal(await rows(), projected, `after applying the batch again (${retry + 1})`);
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { WEBHOOK_OUTBOX_PROJECTION, webhookOutboxProjection } from '../../projections/webhook/outbox-projection.ts';
import { readCheckpoints } from '../../platform/projections/checkpoints.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { appendReportEvent, deliveriesOf, deliveriesSettled } from '../support/webhook.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

interface Ctx {
  app: TestApp;
}
const test = suite<Ctx>('webhook: the outbox filler');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
});
test.after(async (ctx) => {
  await ctx.app.stop();
});

test('a rebuild of the outbox rebuilds its subscriptions but sends no history again', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const tenant = await provisionTenant(ctx.app);
    const created = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: receiver.url, events: ['report.finished'] } });
    for (let i = 0; i < 3; i++) await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId });
    await receiver.waitFor(3);
    await deliveriesSettled(ctx.app, tenant.organizationId);

    await rebuildProjection(ctx.app.app.db, ctx.app.app.store, webhookOutboxProjection);
    const checkpoint = (await readCheckpoints(ctx.app.app.db, [WEBHOOK_OUTBOX_PROJECTION])).get(WEBHOOK_OUTBOX_PROJECTION);
    assert.ok(checkpoint && checkpoint.position.commit > 0n, 'the rebuild replayed to the head');
    // The rebuild has returned: a row it queued again would be pending now.
    assert.equal(
      (await deliveriesOf(ctx.app, created.body.id)).map((d) => [d.status, d.attempts]),
      Array(3).fill(['succeeded', 1]),
      'history was not queued again',
    );
    assert.ok(await ctx.app.app.db('webhook_outbox_targets').where({ id: created.body.id }).first(), 'its copy of the subscriptions is back');

    // A new event goes the same way: once it has arrived and settled, nothing of the history follows it.
    const next = await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId });
    await receiver.waitFor(4);
    await deliveriesSettled(ctx.app, tenant.organizationId);
    assert.is(receiver.received.length, 4, 'history was not sent again');
    assert.is(JSON.parse(receiver.received[3]!.body).data.reportId, next.reportId);
    assert.is((await deliveriesOf(ctx.app, created.body.id)).length, 4);
  } finally {
    await receiver.close();
  }
});

test('an event is matched against the subscriptions as they were when it happened', async (ctx) => {
  const receiver = await startReceiver();
  try {
    const tenant = await provisionTenant(ctx.app);
    // Before the subscription exists: never delivered, even though the outbox may see both together.
    await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId });
    const created = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: receiver.url, events: ['report.finished'] } });
    const after = await appendReportEvent(ctx.app, 'ReportSourcesFinished', { organizationId: tenant.organizationId });
    const [request] = await receiver.waitFor(1);
    // The outbox makes rows in log order, each batch with its checkpoint: past the later event, a
    // row for the earlier one would exist by now.
    await deliveriesSettled(ctx.app, tenant.organizationId);
    assert.is(receiver.received.length, 1);
    assert.is(JSON.parse(request!.body).data.reportId, after.reportId);
    assert.is((await deliveriesOf(ctx.app, created.body.id)).length, 1);
  } finally {
    await receiver.close();
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CPF_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';

interface Ctx {
  app: TestApp;
  receiver: Receiver;
}
const test = suite<Ctx>('webhook: driven by a real report');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.receiver = await startReceiver();
});
test.after(async (ctx) => {
  await ctx.receiver.close();
  await ctx.app.stop();
});

test('a report run reaches legacy and named subscriptions with the report facts', async ({ app, receiver }) => {
  const tenant = await provisionTenant(app);
  const types = ['REPORT', 'REPORT_FINISHED', 'REPORT_STATUS', 'CREDIT_POLICY'];
  for (const type of types) {
    const reply = await app.call('POST', '/webhook', { token: tenant.token, body: { type, url: `${receiver.url}/legacy/${type}` } });
    assert.is(reply.status, 200, JSON.stringify(reply.body));
  }
  const named = await app.call('POST', '/v1/webhook/subscriptions', {
    token: tenant.token,
    body: { url: `${receiver.url}/named`, events: ['report.finished', 'report.status.changed'] },
  });
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CPF_POLICY })).body.id;
  const report = await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '10000000280', type: 'cpf', policyId, externalId: 'erp-42' } });
  assert.is(report.status, 200, JSON.stringify(report.body));
  await waitForReport(app, tenant.token, report.body.id);

  const deliveries = await eventually(
    async () => {
      const mine = receiver.received.filter((r) => r.body.includes(report.body.id));
      const paths = new Set(mine.map((r) => r.path));
      // Both named events, not just the first: each is its own delivery and they may arrive apart.
      const namedEvents = new Set(mine.filter((r) => r.path === '/named').map((r) => JSON.parse(r.body).event));
      return types.every((t) => paths.has(`/legacy/${t}`)) && namedEvents.size === 2 && mine;
    },
    { timeoutMs: 15_000, what: 'deliveries of every subscribed type' },
  );
  for (const request of deliveries.filter((r) => r.path.startsWith('/legacy/'))) {
    const envelope = JSON.parse(request.body);
    assert.is(envelope.webhookType, request.path.split('/')[2]);
    assert.is(envelope.organizationId, tenant.organizationId);
    for (const field of ['reportId', 'document', 'type', 'status', 'policyStatus', 'score', 'externalId']) assert.ok(field in envelope.data, `${envelope.webhookType} ${field}`);
    assert.is(envelope.data.externalId, 'erp-42');
  }
  const signed = deliveries.filter((r) => r.path === '/named');
  assert.ok(signed.every((r) => receiverAccepts(named.body.secret, r.headers, r.body)));
  assert.equal([...new Set(signed.map((r) => JSON.parse(r.body).event))].sort(), ['report.finished', 'report.status.changed']);
});

test.run();

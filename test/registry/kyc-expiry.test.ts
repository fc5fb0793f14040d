import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recomputeExpiredKyc } from '../../application/registry/kyc-expiry-job.ts';
import { registryStream } from '../../domain/registry/events.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { COMPANY, pdfWith, uploadFile } from './support.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
  secret: string;
}
const test = suite<Ctx>('registry: KYC drops when a document validity ends (scheduler job, registry.updated)');
const DAY_MS = 86_400_000;
/** The service's clock runs this far ahead of the real one (only ever moved forward). */
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

test.before(async (ctx) => {
  // The job runs every second, so a moved clock is acted on without waiting an hour.
  ctx.app = await startTestApp({ REGISTRY_KYC_CRON: '* * * * * *' });
  ctx.app.app.clock = { now };
  ctx.tenant = await provisionTenant(ctx.app);
  ctx.receiver = await startReceiver();
  const sub = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: ctx.receiver.url, events: ['registry.updated'] } });
  assert.is(sub.status, 201, JSON.stringify(sub.body));
  ctx.secret = sub.body.secret;
});
test.after(async (ctx) => {
  await ctx.receiver?.close();
  await ctx.app?.stop();
});

const ddmmyyyy = (date: Date) => date.toISOString().slice(0, 10).split('-').reverse().join('/');
const updates = (ctx: Ctx, registryId: string) => ctx.receiver.received.filter((r) => JSON.parse(r.body).data.registryId === registryId);

test('a contract valid through tomorrow counts; two days later the job drops completeness and KYC status once, and registry.updated says so', async (ctx) => {
  const created = await ctx.app.call('POST', '/v1/registry', { token: ctx.tenant.token, body: COMPANY });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const registryId: string = created.body.id;
  const tomorrow = new Date(now().getTime() + DAY_MS);
  const pdf = await pdfWith(['CONTRATO SOCIAL DA PADARIA EXEMPLO LTDA', `VÁLIDO ATÉ ${ddmmyyyy(tomorrow)}`]);
  const upload = await uploadFile(ctx.app, ctx.tenant.token, `/v1/registry/${registryId}/documents`, { bytes: pdf, fileName: 'contrato.pdf' }, { expectedType: 'CONTRATO_SOCIAL' });
  assert.is(upload.status, 201, JSON.stringify(upload.body));
  const read = () => ctx.app.call('GET', `/v1/registry/${registryId}`, { token: ctx.tenant.token }).then((r) => r.body);
  const counted = await eventually(async () => ((await read()).completeness === 33 ? read() : null), { what: 'the contract counted' });
  assert.equal([counted.kycStatus, counted.requirements[0].met], ['INCOMPLETE', true]);
  await eventually(async () => updates(ctx, registryId).length === 1, { what: 'registry.updated for the contract' });

  offsetMs += 2 * DAY_MS;
  const dropped = await eventually(
    async () => {
      const registry = await read();
      return registry.completeness === 0 && registry;
    },
    { what: 'the scheduler job dropping the registry' },
  );
  assert.equal([dropped.kycStatus, dropped.requirements[0].met], ['PENDING', false]);
  const [, drop] = await eventually(async () => updates(ctx, registryId).length === 2 && updates(ctx, registryId), { what: 'registry.updated for the drop' });
  const body = JSON.parse(drop!.body);
  assert.equal([body.event, body.data], ['registry.updated', { registryId, document: COMPANY.document, kycStatus: 'PENDING', completeness: 0 }]);
  assert.ok(receiverAccepts(ctx.secret, drop!.headers, drop!.body), 'signed with the subscription secret');

  // Two more passes at once (as two schedulers would): nothing more is appended.
  const changed = await Promise.all([recomputeExpiredKyc(ctx.app.app), recomputeExpiredKyc(ctx.app.app)]);
  assert.equal(changed, [0, 0]);
  const kycEvents = (await ctx.app.app.store.readStream(registryStream(registryId))).filter((e) => e.type === 'RegistryKycChanged');
  assert.equal(
    kycEvents.map((e) => e.data.completeness),
    [33, 0],
  );
});

test.run();

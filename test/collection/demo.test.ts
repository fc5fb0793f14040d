import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionDemoSeeder } from '../../application/collection/demo.ts';
import { demoSeeders } from '../../application/demo.ts';
import { MODULES, PERMISSIONS, type Principal } from '../../domain/identity/access.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { detailWhen } from './support.ts';

const test = suite('provision --demo: a collection with a FORM, a CONSENT, an IDENTITY and a JOINT SIGNATURE item');
let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});
test.after(async () => {
  await app?.stop();
});

test('the form answered and the consent accepted, the identity check waiting, the contract signed by the first of two parties in order', async () => {
  assert.ok(demoSeeders.includes(collectionDemoSeeder));
  const tenant = await provisionTenant(app, { name: 'Demo' });
  const principal = { organizationId: tenant.organizationId, userId: tenant.userId, userName: 'Demo', modules: new Set(MODULES), permissions: new Set(PERMISSIONS) } as unknown as Principal;
  const seeded = (await collectionDemoSeeder.seed(app.app, { organizationId: tenant.organizationId, userId: tenant.userId, principal })) as {
    collections: Array<{ id: string; links: Array<{ recipientId: string; url: string }> }>;
  };
  const [demo] = seeded.collections;
  assert.is(demo!.links.length, 2);
  const call = (method: string, path: string) => app.call(method, path, { token: tenant.token });
  const detail = await detailWhen(app, call, tenant.organizationId, demo!.id, (d) => d.items.find((i: any) => i.kind === 'SIGNATURE').details.signature.parties[0].signedAt !== null, 'the demo');
  const byKind = Object.fromEntries(detail.items.map((i: any) => [i.kind, i]));
  assert.equal([byKind.FORM.status, byKind.CONSENT.status, byKind.IDENTITY.status, byKind.SIGNATURE.status], ['VALIDATED', 'VALIDATED', 'PENDING', 'PENDING']);
  assert.is(byKind.SIGNATURE.details.signature.progress, '1 de 2 assinaturas coletadas; falta: Bruno Lima');
  assert.equal([detail.status, detail.registry.name], ['IN_PROGRESS', 'Padaria Pão Dourado Ltda']);
  const page = await (await fetch(demo!.links[0]!.url.replace(/^https?:\/\/[^/]+/, app.url), { headers: { accept: 'text/html' } })).text();
  assert.match(page, /Documento com foto e selfie da sócia/);
});

test.run();

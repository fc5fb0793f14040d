import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { registryStream } from '../../domain/registry/events.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { newCnpj } from './support.ts';

// Collections and registries name who acted by one rule (application/collection/actor.ts): a
// credential that passes their gates only through can-use-registry-api is an integration
// (API_USER); one that also holds the operator's can-generate-report is an operator (USER).
const test = suite('the actor of collections and registries: one rule');
let app: TestApp;
let integration: TestTenant;
let operator: TestTenant;

test.before(async () => {
  app = await startTestApp();
  integration = await provisionTenant(app, { name: 'Integração', permissions: ['can-use-registry-api'] });
  operator = await provisionTenant(app, { name: 'Operação' });
});
test.after(async () => {
  await app?.stop();
});

async function actors(tenant: TestTenant): Promise<[string, string]> {
  const collection = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Mercado Central Ltda', document: newCnpj() },
      items: [{ key: 'foto', kind: 'CUSTOM', title: 'Foto da fachada' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
    },
  });
  assert.is(collection.status, 201, JSON.stringify(collection.body));
  const registry = await app.call('POST', '/v1/registry', { token: tenant.token, body: { document: newCnpj(), name: 'Mercado Central Ltda', entityType: 'COMPANY' } });
  assert.is(registry.status, 201, JSON.stringify(registry.body));
  const [created] = await app.app.store.readStream(registryStream(registry.body.id));
  return [collection.body.trail.find((e: any) => e.action === 'COLLECTION_CREATED').actorType, (created!.data as any).actorType];
}

test('an integration credential is API_USER in both; a credential that also operates is USER in both', async () => {
  assert.equal(await actors(integration), ['API_USER', 'API_USER']);
  assert.equal(await actors(operator), ['USER', 'USER']);
});

test.run();

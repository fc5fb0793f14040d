import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTemplate, reviseTemplate, switchTemplate } from '../../application/collection-template/commands.ts';
import { PLATFORM_TEMPLATES } from '../../domain/collection-template/platform.ts';
import { findTemplateBySlug, templateMetrics } from '../../projections/collection-template/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { appendCollectionEvent, sampleContent } from './support.ts';

const test = suite('collection templates: the lookup other modules use');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  other = await provisionTenant(app, { name: 'Other organization' });
});
test.after(async () => {
  await app?.stop();
});

test('every platform template is there for any organization, switched on, with no copy of its own', async () => {
  for (const platform of PLATFORM_TEMPLATES) {
    const found = await findTemplateBySlug(app.app.db, tenant.organizationId, platform.slug);
    assert.equal(found, { ...platform, enabled: true });
  }
  assert.is(await findTemplateBySlug(app.app.db, tenant.organizationId, 'no-such-template'), null);
});

test('a switched-off template is still found, with enabled false, and only for that organization', async () => {
  const { position } = await switchTemplate(app.app, tenant, 'kyc-refresh', false);
  await app.app.readYourWrites(['collection-template'], position);
  assert.is((await findTemplateBySlug(app.app.db, tenant.organizationId, 'kyc-refresh'))!.enabled, false);
  assert.is((await findTemplateBySlug(app.app.db, other.organizationId, 'kyc-refresh'))!.enabled, true);
});

test("an organization's own template: its latest version, invisible to another organization", async () => {
  await createTemplate(app.app, tenant, 'rural', sampleContent());
  const { position } = await reviseTemplate(app.app, tenant, 'rural', sampleContent({ expiryDays: 20 }));
  await app.app.readYourWrites(['collection-template'], position);
  const found = await findTemplateBySlug(app.app.db, tenant.organizationId, 'rural');
  assert.is(found!.scope, 'ORGANIZATION');
  assert.is(found!.version, 2);
  assert.is(found!.expiryDays, 20);
  assert.is(found!.enabled, true);
  assert.equal(found!.items, sampleContent().items);
  assert.is(await findTemplateBySlug(app.app.db, other.organizationId, 'rural'), null);
});

test('metrics count collections created from a template and the hours until each completed', async () => {
  const org = tenant.organizationId;
  const ids = ['a', 'b', 'c'].map((c) => c.repeat(24));
  for (const id of ids) {
    await appendCollectionEvent(app, 'CollectionCreated', {
      organizationId: org,
      collectionId: id,
      occurredAt: '2026-11-01T00:00:00.000Z',
      payload: { template: 'person-onboarding', templateVersion: 1 },
    });
  }
  await appendCollectionEvent(app, 'CollectionCreated', { organizationId: org, collectionId: 'd'.repeat(24), occurredAt: '2026-11-01T00:00:00.000Z', payload: { template: null } });
  await appendCollectionEvent(app, 'CollectionCompleted', { organizationId: org, collectionId: ids[0]!, occurredAt: '2026-11-01T10:00:00.000Z' });
  await appendCollectionEvent(app, 'CollectionCompleted', { organizationId: org, collectionId: ids[1]!, occurredAt: '2026-11-02T05:00:00.000Z' });
  const metrics = await eventually(async () => {
    const m = (await templateMetrics(app.app.db, org, ['person-onboarding'])).get('person-onboarding');
    return m?.completedCollections === 2 && m;
  });
  assert.equal(metrics, { collections: 3, completedCollections: 2, completionRate: 0.6667, averageCompletionHours: 19.5 });
  assert.equal((await templateMetrics(app.app.db, other.organizationId, ['person-onboarding'])).size, 0);
});

test.run();

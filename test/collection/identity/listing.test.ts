import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Messages } from '../../../domain/shared/messages.ts';
import { IDENTITY_WINDOW } from '../../../projections/collection/identity-queries.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { provisionTenant, type TestTenant } from '../../support/identity.ts';

const test = suite('identity validation listing: kycEnabled, masked documents, the 5000-per-origin window');
let app: TestApp;
let kyc: TestTenant;
let scrOnly: TestTenant;
let other: TestTenant;

const BASE = Date.parse('2026-11-01T00:00:00.000Z');
const hex = (n: number, prefix: string) => `${prefix}${n.toString(16).padStart(24 - prefix.length, '0')}`;

/** Verifications written straight into the read model: `count` of one origin, one minute apart, every third REPROVADO. */
function rows(organizationId: string, origin: string, count: number, prefix: string) {
  return Array.from({ length: count }, (_, i) => ({
    check_id: hex(i, prefix),
    organization_id: organizationId,
    origin,
    collection_id: hex(1, 'c'),
    item_id: hex(2, 'b'),
    recipient_id: hex(3, 'a'),
    registry_id: hex(4, 'd'),
    subject_id: null,
    document: '***.456.789-**',
    image_blob_ids: JSON.stringify([]),
    image_count: 2,
    provider: 'sandbox',
    verdict: i % 3 === 0 ? 'REPROVADO' : 'APROVADO',
    similarity: i % 3 === 0 ? 0.12 : 0.97,
    liveness: 0.99,
    signals: JSON.stringify([]),
    started_at: new Date(BASE + i * 60_000).toISOString(),
    completed_at: new Date(BASE + i * 60_000).toISOString(),
  }));
}

test.before(async () => {
  app = await startTestApp();
  kyc = await provisionTenant(app, { modules: ['registry', 'kyc'] });
  scrOnly = await provisionTenant(app, { modules: ['registry', 'scr'] });
  other = await provisionTenant(app, { modules: ['registry', 'kyc'] });
  const seeded = [...rows(kyc.organizationId, 'COLLECTION', IDENTITY_WINDOW + 7, 'e'), ...rows(kyc.organizationId, 'SIGNATURE', 5, 'f'), ...rows(other.organizationId, 'COLLECTION', 3, '9')];
  for (let i = 0; i < seeded.length; i += 1000) await app.database.knex('collection_identity_validations').insert(seeded.slice(i, i + 1000));
});
test.after(async () => {
  await app?.stop();
});

const list = (query: string, tenant = kyc) => app.call('GET', `/v1/identity-validations${query}`, { token: tenant.token });

test('more than 5000 of an origin: the window keeps its 5000 most recent, says so, and counts only them', async () => {
  const reply = await list('?take=3');
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  const { total, items, summary } = reply.body;
  assert.is(total, IDENTITY_WINDOW + 5);
  assert.equal(summary.window, { applied: true, size: IDENTITY_WINDOW, origins: ['COLLECTION'] });
  assert.equal(summary.byOrigin, { COLLECTION: IDENTITY_WINDOW, SIGNATURE: 5, PUBLIC_FORM: 0 });
  // COLLECTION rows 7..5006 are in the window (the 7 oldest left out): REPROVADO every third index.
  const rejected = Array.from({ length: IDENTITY_WINDOW }, (_, k) => k + 7).filter((i) => i % 3 === 0).length + [0, 3].length;
  assert.equal(summary.byVerdict, { APROVADO: IDENTITY_WINDOW + 5 - rejected, REPROVADO: rejected, INCONCLUSIVO: 0 });
  assert.is(summary.verifications, IDENTITY_WINDOW + 5);
  assert.equal(
    items.map((v: any) => v.checkId),
    [hex(IDENTITY_WINDOW + 6, 'e'), hex(IDENTITY_WINDOW + 5, 'e'), hex(IDENTITY_WINDOW + 4, 'e')],
  );
  assert.equal(Object.keys(items[0]).sort(), [
    'checkId',
    'collectionId',
    'completedAt',
    'document',
    'evaluation',
    'imageCount',
    'itemId',
    'liveness',
    'origin',
    'provider',
    'recipientId',
    'registryId',
    'signals',
    'similarity',
    'verdict',
  ]);
  assert.is(items[0].document, '***.456.789-**');
});

test('filters: origin (the window not applied), verdict (total of the window), period (the window within it), paging', async () => {
  const signature = (await list('?origin=SIGNATURE')).body;
  assert.equal([signature.total, signature.summary.window.applied, signature.items.length], [5, false, 5]);
  const rejected = (await list('?verdict=REPROVADO&take=100')).body;
  assert.is(rejected.total, rejected.summary.byVerdict.REPROVADO);
  assert.ok(rejected.items.every((v: any) => v.verdict === 'REPROVADO' && v.evaluation.startsWith('Identidade não confirmada')));
  const from = new Date(BASE + 100 * 60_000).toISOString();
  const to = new Date(BASE + 199 * 60_000).toISOString();
  const period = (await list(`?origin=COLLECTION&from=${from}&to=${to}&skip=95&take=10`)).body;
  assert.equal([period.total, period.summary.window.applied, period.items.length, period.items.at(-1).checkId], [100, false, 5, hex(100, 'e')]);
  const others = (await list('', other)).body;
  assert.equal([others.total, others.items.every((v: any) => v.checkId.startsWith('9'))], [3, true]);
});

test('an organization with only scrEnabled gets 404; bad filters 400', async () => {
  const reply = await list('', scrOnly);
  assert.equal([reply.status, reply.body.message], [404, Messages.resourceNotFound]);
  assert.is((await list('?origin=OUTRA')).status, 400);
  assert.is((await list('?take=101')).status, 400);
  assert.is((await list('?from=ontem')).status, 400);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureRegistry, receiveDocument, REGISTRY_DOCUMENT_MAX_BYTES } from '../../application/registry/intake-commands.ts';
import { registryDocumentStream } from '../../domain/registry/document-events.ts';
import { RegistryMessages } from '../../domain/registry/messages.ts';
import { REGISTRY_PROJECTION } from '../../projections/registry/projection.ts';
import { findDocumentOnFile, registrySummary } from '../../projections/registry/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { assertRefusedAsync, COMPANY, JPEG_BYTES, PNG_BYTES, pdfWith } from './support.ts';
import { eventually } from '../support/wait.ts';

const test = suite<{ app: TestApp }>('registry: intake (ensureRegistry, receiveDocument, findDocumentOnFile, registrySummary)');
const ORG = '65a000000000000000000001';
const OTHER = '65a000000000000000000002';
const actor = { actorType: 'SYSTEM' as const, actorId: null };

test.before(async (ctx) => {
  ctx.app = await startTestApp();
});
test.after(async (ctx) => {
  await ctx.app.stop();
});

test('ensureRegistry finds or creates one registry per CPF/CNPJ per organization, even when raced', async ({ app }) => {
  const results = await Promise.all(Array.from({ length: 5 }, () => ensureRegistry(app.app, ORG, { ...COMPANY, document: '11.222.333/0001-81' }, actor)));
  assert.is(new Set(results.map((r) => r.registryId)).size, 1);
  assert.is(results.filter((r) => r.position !== null).length, 1, 'one creation, the others found it');
  const other = await ensureRegistry(app.app, OTHER, COMPANY, actor);
  assert.is.not(other.registryId, results[0]!.registryId, 'another organization has its own');
  await app.app.readYourWrites([REGISTRY_PROJECTION], results.find((r) => r.position)!.position);
  assert.equal(await registrySummary(app.app.db, ORG, results[0]!.registryId), {
    registryId: results[0]!.registryId,
    document: COMPANY.document,
    name: COMPANY.name,
    entityType: 'COMPANY',
    kycStatus: 'PENDING',
    completeness: 0,
  });
  assert.is(await registrySummary(app.app.db, OTHER, results[0]!.registryId), null);
  await assertRefusedAsync(() => ensureRegistry(app.app, ORG, { ...COMPANY, entityType: 'PERSON' }, actor), 'invalid', RegistryMessages.entityTypeMismatch);
  await assertRefusedAsync(() => ensureRegistry(app.app, ORG, { ...COMPANY, document: '11222333000182' }, actor), 'invalid', 'Documento inválido.');
});

test('receiveDocument sniffs the bytes, bounds the size and records the source; analysis ends assessed', async ({ app }) => {
  const { registryId } = await ensureRegistry(app.app, ORG, COMPANY, actor);
  const base = { organizationId: ORG, registryId, expectedType: 'CONTRATO_SOCIAL' as const, source: null, actor };
  await assertRefusedAsync(() => receiveDocument(app.app, { ...base, fileName: 'a.pdf', bytes: Buffer.from('só texto, não é PDF') }), 'invalid', RegistryMessages.unsupportedFile);
  await assertRefusedAsync(() => receiveDocument(app.app, { ...base, fileName: 'a.pdf', bytes: Buffer.alloc(0) }), 'invalid', RegistryMessages.emptyFile);
  await assertRefusedAsync(
    () => receiveDocument(app.app, { ...base, fileName: 'a.pdf', bytes: Buffer.concat([PNG_BYTES, Buffer.alloc(REGISTRY_DOCUMENT_MAX_BYTES)]) }),
    'invalid',
    RegistryMessages.fileTooLarge('16'),
  );
  await assertRefusedAsync(() => receiveDocument(app.app, { ...base, organizationId: OTHER, fileName: 'a.png', bytes: PNG_BYTES }), 'not_found', RegistryMessages.registryNotFound);

  const source = { collectionId: '65a0000000000000000000c1', itemId: '65a0000000000000000000d1', recipientId: '65a0000000000000000000e1' };
  const png = await receiveDocument(app.app, { ...base, fileName: 'contrato.pdf', bytes: PNG_BYTES, source });
  const [received] = await app.app.store.readStream(registryDocumentStream(png.registryDocumentId));
  assert.equal([received!.type, received!.data.mimeType, received!.data.source], ['RegistryDocumentReceived', 'image/png', source]);
  const jpeg = await receiveDocument(app.app, { ...base, fileName: 'foto', bytes: JPEG_BYTES });
  assert.is((await app.app.store.readStream(registryDocumentStream(jpeg.registryDocumentId)))[0]!.data.mimeType, 'image/jpeg');

  const pdf = await receiveDocument(app.app, { ...base, fileName: 'contrato.pdf', bytes: await pdfWith(['CONTRATO SOCIAL', 'Cláusula primeira: da denominação social', COMPANY.name]), source });
  const assessed = await eventually(async () => (await app.app.store.readStream(registryDocumentStream(pdf.registryDocumentId))).find((e) => e.type === 'RegistryDocumentAssessed'), {
    what: 'assessed',
  });
  assert.equal([assessed.data.verdict, assessed.data.status, assessed.data.source], ['VALIDO', 'VALIDATED', source]);
});

test('findDocumentOnFile: a VALIDATED document of that type, only while validUntil has not passed', async ({ app }) => {
  const { registryId } = await ensureRegistry(app.app, ORG, { ...COMPANY, document: '11444777000161' }, actor);
  const bytes = await pdfWith(['CERTIDÃO NEGATIVA DE DÉBITOS RELATIVOS AOS TRIBUTOS FEDERAIS', 'Procuradoria-Geral da Fazenda Nacional', 'Válida até 30/06/2027', 'CNPJ: 11.444.777/0001-61']);
  const { registryDocumentId } = await receiveDocument(app.app, { organizationId: ORG, registryId, fileName: 'cnd.pdf', bytes, expectedType: 'CERTIDAO_PGFN_PJ', source: null, actor });
  const found = { registryId, registryDocumentId, validUntil: '2027-06-30' };
  const onFile = (asOf: string, org = ORG) => findDocumentOnFile(app.app.db, org, '11444777000161', 'CERTIDAO_PGFN_PJ', asOf);
  assert.equal(await eventually(() => onFile('2026-11-23T12:00:00.000Z'), { what: 'document on file' }), found);
  assert.equal(await onFile('2027-06-30T23:59:59.000Z'), found, 'still valid on its last day');
  assert.is(await onFile('2027-07-01T00:00:00.000Z'), null, 'expired');
  assert.is(await onFile('2026-11-23T12:00:00.000Z', OTHER), null, 'another organization has nothing on file');
  assert.is(await findDocumentOnFile(app.app.db, ORG, '11444777000161', 'CONTRATO_SOCIAL', '2026-11-23T12:00:00.000Z'), null, 'another type');
});

test.run();

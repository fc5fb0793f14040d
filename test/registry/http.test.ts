import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { REGISTRY_DOCUMENT_MAX_BYTES } from '../../application/registry/intake-commands.ts';
import { RegistryMessages } from '../../domain/registry/messages.ts';
import { registryDocumentStream } from '../../domain/registry/document-events.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { uploadMessages } from '../../http/upload.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { COMPANY, JPEG_BYTES, PNG_BYTES, pdfWith, uploadFile } from './support.ts';
import { eventually, readUntil } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  receiver: Receiver;
  registryId: string;
}
const test = suite<Ctx>('registry: HTTP end to end (registries, documents, analysis, webhooks)');

const REGISTRY_EVENTS = [
  'registry.document.received',
  'registry.document.progress',
  'registry.document.assessed',
  'registry.document.failed',
  'registry.document.reprocessed',
  'registry.document.decided',
  'registry.updated',
];
/** The data fields of each event, exactly as the contract's table lists them. */
const DATA_FIELDS: Record<string, string[]> = {
  'registry.document.received': ['registryId', 'registryDocumentId', 'document', 'fileName', 'mimeType', 'sizeBytes', 'expectedType', 'status'],
  'registry.document.progress': ['registryId', 'registryDocumentId', 'stage', 'type', 'attempt'],
  'registry.document.assessed': ['registryId', 'registryDocumentId', 'document', 'type', 'status', 'attempt', 'verdict', 'score', 'reason'],
  'registry.document.failed': ['registryId', 'registryDocumentId', 'document', 'type', 'status', 'attempt', 'verdict', 'score', 'reason'],
  'registry.document.reprocessed': ['registryId', 'registryDocumentId', 'attempt', 'forceType', 'overriddenFeedbackVerdict'],
  'registry.document.decided': ['registryId', 'registryDocumentId', 'type', 'status', 'attempt', 'verdict', 'comment', 'decidedByUserId'],
  'registry.updated': ['registryId', 'document', 'kycStatus', 'completeness'],
};

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.tenant = await provisionTenant(ctx.app);
  ctx.receiver = await startReceiver();
  const sub = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: ctx.receiver.url, events: REGISTRY_EVENTS } });
  assert.is(sub.status, 201, JSON.stringify(sub.body));
});
test.after(async (ctx) => {
  await ctx.receiver?.close();
  await ctx.app?.stop();
});

const call = (ctx: Ctx, method: string, path: string, body?: unknown, token = ctx.tenant.token) => ctx.app.call(method, path, { token, body });
const docsPath = (ctx: Ctx) => `/v1/registry/${ctx.registryId}/documents`;
const upload = async (ctx: Ctx, bytes: Buffer, fileName: string, expectedType?: string) => {
  const reply = await uploadFile(ctx.app, ctx.tenant.token, docsPath(ctx), { bytes, fileName }, expectedType ? { expectedType } : {});
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return reply.body;
};
const settled = (ctx: Ctx, id: string, attempt = 1) =>
  eventually(
    async () => {
      const reply = await call(ctx, 'GET', `${docsPath(ctx)}/${id}`);
      return !['RECEIVED', 'PROCESSING'].includes(reply.body.status) && reply.body.opinion.attempt === attempt && reply.body;
    },
    { what: `document ${id} settled` },
  );
const hooks = (ctx: Ctx, event: string, registryDocumentId?: string) =>
  ctx.receiver.json().filter((h) => h.event === event && (!registryDocumentId || h.data.registryDocumentId === registryDocumentId));
const hook = (ctx: Ctx, event: string, registryDocumentId?: string, where: (data: any) => boolean = () => true) =>
  eventually(async () => hooks(ctx, event, registryDocumentId).find((h) => where(h.data)), { what: `${event} delivered` });

test('create, duplicate (409 with its id), validation, list with search, update, another tenant 404', async (ctx) => {
  const created = await call(ctx, 'POST', '/v1/registry', { ...COMPANY, document: '11.222.333/0001-81', contacts: [{ name: 'Ana', phone: '(11) 98765-4321' }], organizationId: 'x' });
  assert.is(created.status, 201, JSON.stringify(created.body));
  ctx.registryId = created.body.id;
  assert.equal(
    [created.body.document, created.body.kycStatus, created.body.completeness, created.body.contacts],
    [COMPANY.document, 'PENDING', 0, [{ name: 'Ana', email: null, phone: '+5511987654321' }]],
  );
  assert.equal(
    created.body.requirements.map((r: { met: boolean }) => r.met),
    [false, false, false],
  );
  const again = await call(ctx, 'POST', '/v1/registry', COMPANY);
  assert.equal([again.status, again.body], [409, { code: 409, message: RegistryMessages.registryExists, registryId: ctx.registryId }]);
  assert.equal((await call(ctx, 'POST', '/v1/registry', { ...COMPANY, entityType: 'PERSON' })).body, { code: 400, message: RegistryMessages.entityTypeMismatch });
  assert.equal((await call(ctx, 'POST', '/v1/registry', { ...COMPANY, document: '11222333000182' })).body, { code: 400, message: Messages.invalidDocument });
  assert.is((await call(ctx, 'POST', '/v1/registry', { ...COMPANY, entityType: 'ROBOT' })).status, 400);
  const list = await call(ctx, 'GET', '/v1/registry?search=padaria');
  assert.equal([list.body.total, list.body.items[0].id], [1, ctx.registryId]);
  assert.is((await call(ctx, 'GET', '/v1/registry?search=999')).body.total, 0);
  const patched = await call(ctx, 'PATCH', `/v1/registry/${ctx.registryId}`, { name: 'Padaria Nova', basicData: { city: 'Santos', state: 'SP' } });
  assert.equal([patched.status, patched.body.name, patched.body.basicData.city], [200, 'Padaria Nova', 'Santos']);
  const updated = await hook(ctx, 'registry.updated', undefined, (d) => d.kycStatus === 'PENDING');
  assert.equal(updated.data, { registryId: ctx.registryId, document: COMPANY.document, kycStatus: 'PENDING', completeness: 0 });
  assert.equal((await call(ctx, 'GET', '/v1/registry/nope')).body, { code: 400, message: Messages.invalidId });
  const other = await provisionTenant(ctx.app);
  for (const [method, path] of [
    ['GET', `/v1/registry/${ctx.registryId}`],
    ['GET', docsPath(ctx)],
    ['PATCH', `/v1/registry/${ctx.registryId}`],
  ]) {
    const reply = await call(ctx, method!, path!, method === 'PATCH' ? { name: 'x' } : undefined, other.token);
    assert.equal([reply.status, reply.body.message], [404, RegistryMessages.registryNotFound], `${method} ${path}`);
  }
});

test('a valid CONTRATO_SOCIAL PDF: received, progress, assessed VALIDATED, with the contract data fields; completeness moves', async (ctx) => {
  // Names its subject by CNPJ (the registry's name was changed above): documents must (domain/registry/subject.ts).
  const bytes = await pdfWith(['CONTRATO SOCIAL DA PADARIA EXEMPLO LTDA', `CNPJ ${COMPANY.document}`, 'Cláusula primeira - da denominação']);
  const received = await upload(ctx, bytes, 'contrato.pdf', 'CONTRATO_SOCIAL');
  // The reply reads the document as it is now: the analysis may have started already.
  assert.ok(['RECEIVED', 'PROCESSING'].includes(received.status), received.status);
  assert.equal([received.mimeType, received.expectedType], ['application/pdf', 'CONTRATO_SOCIAL']);
  const doc = await settled(ctx, received.id);
  assert.equal([doc.status, doc.opinion.type, doc.opinion.verdict, doc.opinion.score, doc.opinion.attempt], ['VALIDATED', 'CONTRATO_SOCIAL', 'VALIDO', 0.95, 1]);
  const assessed = await hook(ctx, 'registry.document.assessed', received.id);
  assert.equal(assessed.data, {
    registryId: ctx.registryId,
    registryDocumentId: received.id,
    document: COMPANY.document,
    type: 'CONTRATO_SOCIAL',
    status: 'VALIDATED',
    attempt: 1,
    verdict: 'VALIDO',
    score: 0.95,
    reason: 'Documento identificado como CONTRATO_SOCIAL.',
    provenance: { provider: 'offline-keywords', sandbox: true },
  });
  assert.equal((await hook(ctx, 'registry.document.received', received.id)).data, {
    registryId: ctx.registryId,
    registryDocumentId: received.id,
    document: COMPANY.document,
    fileName: 'contrato.pdf',
    mimeType: 'application/pdf',
    sizeBytes: bytes.length,
    expectedType: 'CONTRATO_SOCIAL',
    status: 'RECEIVED',
  });
  assert.equal((await hook(ctx, 'registry.document.progress', received.id)).data, {
    registryId: ctx.registryId,
    registryDocumentId: received.id,
    stage: 'EXTRACTING',
    type: 'CONTRATO_SOCIAL',
    attempt: 1,
  });
  const updated = await hook(ctx, 'registry.updated', undefined, (d) => d.completeness === 33);
  assert.equal(updated.data, { registryId: ctx.registryId, document: COMPANY.document, kycStatus: 'INCOMPLETE', completeness: 33 });
  // The webhook is sent from the event; the registry's read model may apply it a moment later.
  const registry = await readUntil(
    () => call(ctx, 'GET', `/v1/registry/${ctx.registryId}`),
    (reply) => reply.body.completeness === 33,
    { what: 'the registry read model at completeness 33' },
  );
  assert.is(registry.body.requirements[0].met, true);
});

test('an expired proof of address is INVALIDO; reprocess (attempt 2, forceType) replaces the opinion', async (ctx) => {
  const received = await upload(ctx, await pdfWith(['COMPROVANTE DE RESIDÊNCIA', 'Emitido em 10/01/2020']), 'conta.pdf', 'COMPROVANTE_RESIDENCIA');
  const doc = await settled(ctx, received.id);
  assert.equal([doc.status, doc.opinion.verdict, doc.opinion.reason], ['REJECTED', 'INVALIDO', 'Comprovante de residência emitido em 10/01/2020, há mais de 90 dias.']);
  const reprocessed = await call(ctx, 'POST', `${docsPath(ctx)}/${received.id}/reprocess`, { forceType: 'EXTRATO_BANCARIO' });
  assert.equal([reprocessed.status, reprocessed.body.opinion.attempt], [202, 2]);
  const again = await settled(ctx, received.id, 2);
  assert.equal([again.opinion.type, again.opinion.verdict], ['EXTRATO_BANCARIO', 'INVALIDO'], 'forced type differs from the expected one');
  assert.equal((await hook(ctx, 'registry.document.reprocessed', received.id)).data, {
    registryId: ctx.registryId,
    registryDocumentId: received.id,
    attempt: 2,
    forceType: 'EXTRATO_BANCARIO',
    overriddenFeedbackVerdict: 'INVALIDO',
  });
  assert.ok(await hook(ctx, 'registry.document.assessed', received.id, (d) => d.attempt === 2));
});

test('a JPEG goes to manual review; the operator decides VALIDO against the opinion', async (ctx) => {
  const received = await upload(ctx, JPEG_BYTES, 'extrato.jpg', 'EXTRATO_BANCARIO');
  const doc = await settled(ctx, received.id);
  assert.equal([doc.status, doc.opinion.verdict, doc.mimeType], ['MANUAL_REVIEW', 'ANALISE_MANUAL', 'image/jpeg']);
  await hook(ctx, 'registry.updated', undefined, (d) => d.kycStatus === 'UNDER_REVIEW');
  const decided = await call(ctx, 'POST', `${docsPath(ctx)}/${received.id}/decision`, { verdict: 'VALIDO', comment: 'Conferido à mão' });
  assert.equal(
    [decided.status, decided.body.status, decided.body.opinion.verdict, decided.body.decision],
    [200, 'VALIDATED', 'ANALISE_MANUAL', { verdict: 'VALIDO', comment: 'Conferido à mão', decidedByUserId: ctx.tenant.userId }],
  );
  assert.equal((await hook(ctx, 'registry.document.decided', received.id)).data, {
    registryId: ctx.registryId,
    registryDocumentId: received.id,
    type: 'EXTRATO_BANCARIO',
    status: 'VALIDATED',
    attempt: 1,
    verdict: 'VALIDO',
    comment: 'Conferido à mão',
    decidedByUserId: ctx.tenant.userId,
  });
  assert.ok(await hook(ctx, 'registry.updated', undefined, (d) => d.completeness === 67));
  const stored = await ctx.app.app
    .db('events')
    .where({ stream_name: registryDocumentStream(received.id), event_type: 'RegistryDocumentDecided' })
    .first('data');
  assert.match(String(stored.data.comment), /^pd1\./, 'the comment is stored sealed');
  const bad = await call(ctx, 'POST', `${docsPath(ctx)}/${received.id}/decision`, { verdict: 'TALVEZ' });
  assert.is(bad.status, 400);
});

/** What this service adds to the contract's fields (issue 37): the provenance of an opinion. */
const ADDED_FIELDS: Record<string, string[]> = { 'registry.document.assessed': ['provenance'] };

test('every delivered registry event carries exactly the contract data fields (plus the documented additions)', async (ctx) => {
  const seen = new Set<string>();
  for (const delivered of ctx.receiver.json().filter((h) => h.event.startsWith('registry.'))) {
    assert.equal(Object.keys(delivered.data).sort(), [...DATA_FIELDS[delivered.event]!, ...(ADDED_FIELDS[delivered.event] ?? [])].sort(), delivered.event);
    assert.is(delivered.organizationId, ctx.tenant.organizationId);
    seen.add(delivered.event);
  }
  assert.equal([...seen].sort(), REGISTRY_EVENTS.filter((e) => e !== 'registry.document.failed').sort());
});

test('a broken PDF fails (technical): registry.document.failed with no verdict', async (ctx) => {
  const received = await upload(ctx, Buffer.from('%PDF-1.7\nnada legível'), 'quebrado.pdf', 'CONTRATO_SOCIAL');
  const doc = await settled(ctx, received.id);
  assert.equal([doc.status, doc.opinion.verdict, doc.opinion.score], ['FAILED', null, null]);
  const failed = await hook(ctx, 'registry.document.failed', received.id);
  assert.equal([failed.data.status, failed.data.verdict, failed.data.score, failed.data.type], ['FAILED', null, null, 'CONTRATO_SOCIAL']);
  assert.equal(Object.keys(failed.data).sort(), [...DATA_FIELDS['registry.document.failed']!].sort());
});

test('uploads: type by bytes, 413 over the limit, text refused, multipart only where declared, file required', async (ctx) => {
  const png = await upload(ctx, PNG_BYTES, 'disfarçado.pdf');
  assert.equal([png.mimeType, png.fileName, png.expectedType], ['image/png', 'disfarçado.pdf', null]);
  const text = await uploadFile(ctx.app, ctx.tenant.token, docsPath(ctx), { bytes: Buffer.from('apenas texto'), fileName: 'a.pdf', type: 'application/pdf' });
  assert.equal(text.body, { code: 400, message: RegistryMessages.unsupportedFile });
  const big = await uploadFile(ctx.app, ctx.tenant.token, docsPath(ctx), { bytes: Buffer.concat([PNG_BYTES, Buffer.alloc(REGISTRY_DOCUMENT_MAX_BYTES)]), fileName: 'big.png' });
  assert.equal(big.body, { code: 413, message: uploadMessages.tooLarge(REGISTRY_DOCUMENT_MAX_BYTES) });
  const missing = await uploadFile(ctx.app, ctx.tenant.token, docsPath(ctx), null, { expectedType: 'CONTRATO_SOCIAL' });
  assert.equal(missing.body, { code: 400, message: uploadMessages.missingFile('file') });
  const badType = await uploadFile(ctx.app, ctx.tenant.token, docsPath(ctx), { bytes: PNG_BYTES, fileName: 'a.png' }, { expectedType: 'FOTO' });
  assert.is(badType.status, 400);
  const json = await call(ctx, 'POST', docsPath(ctx), { expectedType: 'CONTRATO_SOCIAL' });
  assert.equal(json.body, { code: 400, message: uploadMessages.missingFile('file') });
  const form = new FormData();
  form.append('name', 'x');
  const multipartToJson = await fetch(`${ctx.app.url}/v1/registry/${ctx.registryId}`, { method: 'PATCH', headers: { authorization: `Bearer ${ctx.tenant.token}` }, body: form });
  assert.equal([multipartToJson.status, await multipartToJson.json()], [415, { code: 415, message: Messages.unsupportedMediaType }]);
  const foreign = await provisionTenant(ctx.app);
  const cross = await uploadFile(ctx.app, foreign.token, docsPath(ctx), { bytes: PNG_BYTES, fileName: 'a.png' });
  assert.equal(cross.body, { code: 404, message: RegistryMessages.registryNotFound });
});

test('download: the bytes, typed by them; recorded as RegistryDocumentDownloaded; another tenant 404', async (ctx) => {
  const bytes = await pdfWith(['EXTRATO BANCÁRIO']);
  const received = await upload(ctx, bytes, 'extrato de conta.pdf');
  const path = `${docsPath(ctx)}/${received.id}/download`;
  const reply = await fetch(ctx.app.url + path, { headers: { authorization: `Bearer ${ctx.tenant.token}` } });
  assert.is(reply.status, 200);
  assert.is(reply.headers.get('content-type'), 'application/pdf');
  assert.match(reply.headers.get('content-disposition')!, /filename\*=UTF-8''extrato%20de%20conta\.pdf/);
  assert.ok(Buffer.from(await reply.arrayBuffer()).equals(bytes));
  const events = await ctx.app.app.store.readStream(registryDocumentStream(received.id));
  const downloaded = events.find((e) => e.type === 'RegistryDocumentDownloaded');
  assert.is(downloaded?.data.byUserId, ctx.tenant.userId);
  const other = await provisionTenant(ctx.app);
  assert.equal((await call(ctx, 'GET', path, undefined, other.token)).body, { code: 404, message: RegistryMessages.documentNotFound });
  assert.equal((await call(ctx, 'GET', `${docsPath(ctx)}/${'0'.repeat(24)}`)).body, { code: 404, message: RegistryMessages.documentNotFound });
});

test('gate (Authentication 7): registry module and a permission; integration credentials also need kycEnabled; else 404', async (ctx) => {
  const hidden = { code: 404, message: Messages.resourceNotFound };
  const cases: Array<[Parameters<typeof provisionTenant>[1], number]> = [
    [{ modules: ['registry'], permissions: ['can-use-registry-api'] }, 404],
    [{ modules: ['registry', 'kyc'], permissions: ['can-use-registry-api'] }, 200],
    [{ modules: ['registry'], permissions: ['can-generate-report'] }, 200],
    [{ modules: ['registry'], permissions: ['can-generate-report', 'can-use-registry-api'] }, 200],
    [{ modules: ['kyc', 'reports'], permissions: ['can-generate-report', 'can-use-registry-api'] }, 404],
    [{ modules: ['registry', 'kyc'], permissions: ['can-manage-settings'] }, 404],
  ];
  for (const [options, status] of cases) {
    const tenant = await provisionTenant(ctx.app, options);
    const reply = await call(ctx, 'GET', '/v1/registry', undefined, tenant.token);
    assert.is(reply.status, status, JSON.stringify(options));
    if (status === 404) assert.equal(reply.body, hidden);
  }
});

test('an erasure of the CNPJ blanks the registry and its documents in the read model (the events read erased) and deletes their files', async (ctx) => {
  const files: Array<{ id: string; blob_id: string }> = await ctx.app.app.db('registry_documents').where({ registry_id: ctx.registryId }).select('id', 'blob_id');
  assert.ok(files.length > 0);
  const erased = await call(ctx, 'POST', '/v1/personal-data/erase', { document: COMPANY.document, type: 'cnpj' });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  const registry = await eventually(
    async () => {
      const reply = await call(ctx, 'GET', `/v1/registry/${ctx.registryId}`);
      return reply.body.name === '***' && reply.body;
    },
    { what: 'registry erased' },
  );
  assert.equal([registry.document, registry.contacts, registry.basicData], ['***', [], {}]);
  const documents = await call(ctx, 'GET', docsPath(ctx));
  assert.ok(documents.body.every((d: { fileName: string }) => d.fileName === '***'));
  const [created] = await ctx.app.app.store.readStream(`registry-${ctx.registryId}`);
  assert.equal([created!.data.name, created!.data.document], ['***', '***']);
  await eventually(
    async () => {
      const deleted = await Promise.all(files.map(async (d) => (await ctx.app.app.store.readStream(registryDocumentStream(d.id))).some((e) => e.type === 'RegistryDocumentFileDeleted')));
      return deleted.every(Boolean);
    },
    { what: 'every file deletion recorded' },
  );
  assert.is(
    (
      await ctx.app.app
        .db('blobs')
        .whereIn(
          'id',
          files.map((d) => d.blob_id),
        )
        .count({ n: '*' })
    )[0]!.n,
    0,
    'the files are gone',
  );
  const download = await call(ctx, 'GET', `${docsPath(ctx)}/${files[0]!.id}/download`);
  assert.equal([download.status, download.body.message], [404, RegistryMessages.fileMissing]);
  const comments = await ctx.app.app
    .db('registry_documents')
    .whereIn(
      'id',
      files.map((d) => d.id),
    )
    .whereNotNull('comment')
    .pluck('comment');
  assert.ok(comments.length > 0 && comments.every((c: string) => c === '***'), 'decision comments read erased');
});

test.run();

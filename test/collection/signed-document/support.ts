import * as assert from 'uvu/assert';
import { createCollection, loadCollection } from '../../../application/collection/commands.ts';
import { sha256Hex } from '../../../application/collection/signed-document/build.ts';
import { recordSignatureCodeSent, signItem, verifySignatureContact } from '../../../application/collection/signature/commands.ts';
import type { SignatureMode } from '../../../domain/collection/enums.ts';
import type { TestApp } from '../../support/app.ts';
import type { TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/webhook.ts';
import { newCnpj } from '../support.ts';
import { uploadFile } from '../../registry/support.ts';
import { contractPdf } from './pdf-tools.ts';

export interface SigningCollection {
  collectionId: string;
  itemId: string;
  recipientIds: string[];
  original: Buffer;
}

/** A registry with a contract of `pages` pages and a sent collection whose one SIGNATURE item asks `parties` people to sign it. */
export async function signingCollection(app: TestApp, tenant: TestTenant, options: { pages?: number; mode?: SignatureMode; parties?: number } = {}): Promise<SigningCollection> {
  const registry = await app.call('POST', '/v1/registry', { token: tenant.token, body: { document: newCnpj(), name: 'Padaria Exemplo Ltda', entityType: 'COMPANY' } });
  assert.is(registry.status, 201, JSON.stringify(registry.body));
  const original = await contractPdf(options.pages ?? 3);
  const uploaded = await uploadFile(app, tenant.token, `/v1/registry/${registry.body.id}/documents`, { bytes: original, fileName: 'Contrato de crédito.pdf', type: 'application/pdf' });
  assert.is(uploaded.status, 201, JSON.stringify(uploaded.body));
  const names = ['Ana Sócia', 'Bruno Avalista', 'Carla Testemunha', 'Davi Fiador'].slice(0, options.parties ?? 3);
  // Created through the application with the document's SHA-256 in the config, which the
  // service fills in itself when the SIGNATURE helper's creation path is merged.
  const signature = { mode: options.mode ?? 'JOINT', flow: 'SIGNATURE' as const, ordered: false, registryDocumentId: uploaded.body.id, documentSha256: sha256Hex(original) };
  const { state } = await createCollection(app.app, { organizationId: tenant.organizationId, userId: tenant.userId, permissions: new Set() }, {
    registryId: registry.body.id,
    items: [{ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato de crédito', config: { signature } }],
    recipients: names.map((name, n) => ({ name, email: `parte${n + 1}@exemplo.com.br` })),
    notificationChannel: 'NONE',
    send: true,
  });
  return { collectionId: state.collectionId!, itemId: state.items[0]!.itemId, recipientIds: state.recipients.map((r) => r.recipientId), original };
}

/** Each party proves their e-mail with a code and signs, as the recipient page's steps do. */
export async function signAs(app: TestApp, organizationId: string, c: SigningCollection, recipientId: string): Promise<void> {
  const ref = { organizationId, collectionId: c.collectionId, itemId: c.itemId, recipientId };
  await recordSignatureCodeSent(app.app, { ...ref, channel: 'EMAIL', codeHash: `code-of-${recipientId}` });
  await verifySignatureContact(app.app, { ...ref, codeHash: `code-of-${recipientId}` });
  await signItem(app.app, { ...ref, ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (Teste) Firefox/132.0' });
}

/** Waits (in the stream, not over HTTP: polling the route would hit the rate limit) until `count` copies are recorded. */
export async function copiesRecorded(app: TestApp, c: SigningCollection, count = 1) {
  return eventually(async () => {
    const copies = (await loadCollection(app.app, c.collectionId)).items[0]!.details.signature?.signedCopies ?? [];
    return copies.length >= count && copies;
  }, 30_000, `${count} signed copies`);
}

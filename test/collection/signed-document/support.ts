import * as assert from 'uvu/assert';
import { loadCollection } from '../../../application/collection/commands.ts';
import { recordSignatureCodeSent, signItem, verifySignatureContact } from '../../../application/collection/signature/commands.ts';
import type { SignatureMode } from '../../../domain/collection/enums.ts';
import type { TestApp } from '../../support/app.ts';
import type { TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
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
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      registryId: registry.body.id,
      items: [{ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato de crédito', config: { signature: { mode: options.mode ?? 'JOINT', flow: 'SIGNATURE', registryDocumentId: uploaded.body.id } } }],
      recipients: names.map((name, n) => ({ name, email: `parte${n + 1}@exemplo.com.br` })),
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  return { collectionId: created.body.id, itemId: created.body.items[0].id, recipientIds: created.body.recipients.map((r: { id: string }) => r.id), original };
}

/**
 * Each party proves their e-mail with a code and signs, through the SIGNATURE kind's commands the
 * recipient page's steps call (the pages themselves are the SIGNATURE helper's tests and the bench's).
 */
export async function signAs(app: TestApp, organizationId: string, c: SigningCollection, recipientId: string): Promise<void> {
  const ref = { organizationId, collectionId: c.collectionId, itemId: c.itemId, recipientId };
  await recordSignatureCodeSent(app.app, { ...ref, channel: 'EMAIL', codeHash: `code-of-${recipientId}` });
  await verifySignatureContact(app.app, { ...ref, codeHash: `code-of-${recipientId}`, attempt: 1 });
  await signItem(app.app, { ...ref, origin: { ip: '203.0.113.7' }, userAgent: 'Mozilla/5.0 (Teste) Firefox/132.0' });
}

/** Waits (in the stream, not over HTTP: polling the route would hit the rate limit) until `count` copies are recorded. */
export async function copiesRecorded(app: TestApp, c: SigningCollection, count = 1) {
  return eventually(
    async () => {
      const copies = (await loadCollection(app.app, c.collectionId)).items[0]!.details.signature?.signedCopies ?? [];
      return copies.length >= count && copies;
    },
    { timeoutMs: 30_000, what: `${count} signed copies` },
  );
}

import { readOutbox } from '../../../application/messaging/channels/outbox.ts';
import * as assert from 'uvu/assert';
import { receiveDocument, ensureRegistry } from '../../../application/registry/intake-commands.ts';
import { pdfWith } from '../../registry/support.ts';
import type { TestApp } from '../../support/app.ts';
import type { TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import type { TestIdentityImages } from '../identity/images.ts';
import { newCnpj } from '../support.ts';

/** What the signature HTTP suites share: a contract PDF in a registry, the recipient page driven as a browser does. */
export const CONTRACT_LINES = ['CONTRATO DE ABERTURA DE CRÉDITO', 'Cláusula primeira: do valor e do prazo'];

/** A company registry holding a contract PDF (and a PNG, for the refusal): the documents a SIGNATURE item may name. */
export async function registryWithContract(app: TestApp, tenant: TestTenant) {
  const subject = { name: 'Padaria Exemplo Ltda', document: newCnpj(), entityType: 'COMPANY' as const };
  const actor = { actorType: 'USER' as const, actorId: tenant.userId };
  const { registryId } = await ensureRegistry(app.app, tenant.organizationId, subject, actor);
  const bytes = await pdfWith(CONTRACT_LINES);
  const base = { organizationId: tenant.organizationId, registryId, expectedType: null, source: null, actor };
  const { registryDocumentId } = await receiveDocument(app.app, { ...base, fileName: 'contrato.pdf', bytes });
  return { subject: { name: subject.name, document: subject.document }, registryDocumentId, bytes };
}

export const tokenOf = (link: { url: string }) => new URL(link.url).pathname.split('/').pop()!;

/** The recipient page as a browser reads it. */
export async function page(app: TestApp, token: string): Promise<string> {
  const reply = await fetch(`${app.url}/c/${token}`, { headers: { accept: 'text/html' } });
  assert.is(reply.status, 200);
  return reply.text();
}

/** The step the page shows for the SIGNATURE item (identity, waiting, code, sign, signed, ...). */
export const stepOf = (html: string) => /data-step="([a-z]+)"/.exec(html)?.[1] ?? null;

/** One of the page's urlencoded forms, posted as a browser does (no redirect followed). */
export async function submit(app: TestApp, token: string, itemId: string, step: string, fields: Record<string, string> = {}) {
  const reply = await fetch(`${app.url}/c/${token}/items/${itemId}/signature/${step}`, {
    method: 'POST',
    headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'Navegador de Teste/1.0' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: reply.status, location: reply.headers.get('location'), text: await reply.text() };
}

/** The identity step's multipart form (document photo and selfie). */
export async function passIdentity(app: TestApp, token: string, itemId: string, images: TestIdentityImages) {
  const form = new FormData();
  form.set('document', new Blob([new Uint8Array(images.document)]), 'documento.jpg');
  form.set('selfie', new Blob([new Uint8Array(images.selfie)]), 'selfie.png');
  const reply = await fetch(`${app.url}/c/${token}/items/${itemId}/identity`, { method: 'POST', body: form, headers: { accept: 'text/html' }, redirect: 'manual' });
  return reply.status;
}

/** The latest one-time code of this collection that reached `to` (an e-mail address or a phone), read from the messaging outbox. */
export async function codeSentTo(app: TestApp, collectionId: string, to: string, channel: 'EMAIL' | 'WHATSAPP'): Promise<string> {
  // The spool is sealed at rest: rows of the collection's codes are opened, then the address picked.
  const row = await eventually(
    async () =>
      (await readOutbox(app.app, (q) => q.whereIn('message_id', app.app.db('messaging_messages').where({ collection_id: collectionId, template: 'SIGNATURE_CODE' }).select('id')).where({ channel })))
        .filter((message) => message.to === to)
        .at(-1),
    { timeoutMs: 20_000, what: `the code to ${to}` },
  );
  return /é (\d{6})\./.exec(row.text)![1]!;
}

import type { CollectionState, ItemState } from '../state.ts';
import { signatureConfigOf, signaturePartiesOf, signatureStateOf } from './signature-parties.ts';

const names = (state: CollectionState, ids: readonly string[]) => ids.map((id) => state.recipients.find((r) => r.recipientId === id)?.name || 'parte sem nome').join(', ');

/**
 * Where a SIGNATURE item stands, for the operator: "2 de 3 assinaturas coletadas; falta: Maria
 * (sem contato: João)". A party is "sem contato" when the message to them did not arrive
 * (recipient FAILED); a decline is named apart.
 */
export function signatureProgress(state: CollectionState, item: ItemState) {
  const config = signatureConfigOf(item);
  const signature = signatureStateOf(item);
  const parties = signaturePartiesOf(state, item);
  const signed = parties.filter((p) => p.signedAt !== null);
  const missing = parties.filter((p) => p.signedAt === null && p.declinedAt === null).map((p) => p.recipientId);
  const declined = parties.filter((p) => p.declinedAt !== null).map((p) => p.recipientId);
  const unreachable = missing.filter((id) => state.recipients.find((r) => r.recipientId === id)?.status === 'FAILED');
  let text = `${signed.length} de ${parties.length} assinaturas coletadas`;
  if (missing.length) text += `; falta: ${names(state, missing)}`;
  if (unreachable.length) text += ` (sem contato: ${names(state, unreachable)})`;
  if (declined.length) text += `; recusou: ${names(state, declined)}`;
  return {
    text,
    parties,
    /** How many parties can verify by e-mail (never which addresses). */
    emailsOffered: parties.filter((p) => state.recipients.find((r) => r.recipientId === p.recipientId)?.email).length,
    pdfCopyAvailable: signature.completedAt !== null,
    signedDocumentAvailable: signature.signedCopies.length > 0,
    signature,
    config,
  };
}

import { createHash } from 'node:crypto';
import type { SignatureParty } from '../../../domain/collection/kinds/signature.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';
import type { EvidenceParty } from './evidence-page.ts';

/** One copy to produce: JOINT items have one (recipientId null) with every party, INDIVIDUAL one per party with theirs. */
export interface PlannedCopy {
  recipientId: string | null;
  parties: EvidenceParty[];
}

/** `jo***@exemplo.com.br`: enough for the person to recognise their address, not enough to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const local = email.slice(0, at);
  return `${local.slice(0, Math.min(2, local.length - 1) || 1)}***${email.slice(at)}`;
}

/** `+55*******8888`: the country code and the last four digits. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 6) return '***';
  return `+${digits.slice(0, 2)}${'*'.repeat(digits.length - 6)}${digits.slice(-4)}`;
}

function evidenceParty(state: CollectionState, party: SignatureParty): EvidenceParty | null {
  const { evidence } = party;
  if (!party.signedAt || !evidence) return null;
  const recipient = state.recipients.find((r) => r.recipientId === party.recipientId);
  // An erased recipient (LGPD) reads without name or contact: the evidence says so instead of failing.
  const email = recipient?.email ? `e-mail ${maskEmail(recipient.email)}` : 'e-mail (apagado)';
  const phone = recipient?.phone ? `telefone ${maskPhone(recipient.phone)}` : 'telefone (apagado)';
  return {
    name: recipient?.name || '(nome apagado)',
    verifiedContact: evidence.contactChannel === 'EMAIL' ? email : phone,
    signedAt: evidence.signedAt,
    ip: evidence.ip,
    socketAddress: evidence.socketAddress,
    forwardedFor: evidence.forwardedFor,
    userAgent: evidence.userAgent,
  };
}

/** The copies a completed SIGNATURE item gets, its signed parties in signing order. */
export function plannedCopies(state: CollectionState, item: ItemState): PlannedCopy[] {
  const signed = [...(item.details.signature?.parties ?? [])].filter((p) => p.signedAt).sort((a, b) => a.signedAt!.localeCompare(b.signedAt!) || a.order - b.order);
  const withEvidence = signed.map((party) => ({ recipientId: party.recipientId, evidence: evidenceParty(state, party) }));
  const present = withEvidence.filter((p): p is { recipientId: string; evidence: EvidenceParty } => p.evidence !== null);
  if (item.config?.signature?.mode === 'INDIVIDUAL') return present.map((p) => ({ recipientId: p.recipientId, parties: [p.evidence] }));
  return [{ recipientId: null, parties: present.map((p) => p.evidence) }];
}

/**
 * The blob of a copy has an id derived from what it is a copy of, so a retry after a crash finds
 * the copy it stored instead of storing a second one.
 */
export function copyBlobId(collectionId: string, itemId: string, recipientId: string | null): string {
  return createHash('sha256')
    .update(`signed-copy:${collectionId}:${itemId}:${recipientId ?? 'joint'}`)
    .digest('hex')
    .slice(0, 24);
}

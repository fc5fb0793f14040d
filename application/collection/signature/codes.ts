import { createHmac, randomInt } from 'node:crypto';
import { keyringFor, type Config } from '../../../config/index.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { SIGNATURE_CODE_MAX_ATTEMPTS, type ContactChannel } from '../../../domain/collection/kinds/signature.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { organizationName } from '../../../projections/collection/recipient-queries.ts';
import type { AppContext } from '../../context.ts';
import { queueMessage } from '../../messaging/queue.ts';
import { recordSignatureCodeSent, verifySignatureContact } from './commands.ts';

type PartyRef = { organizationId: string; collectionId: string; itemId: string; recipientId: string };

/** The purpose label that turns the sealing key into the code key, so a code hash matches nothing else. */
const CODE_KEY_PURPOSE = 'collection-signature-codes';
const CODE_FORMAT = /^\d{6}$/;

/**
 * Keyed hash of a code for one party of one item: a million codes are quick to try against a plain
 * hash, so the key (derived from the sealing key, like the recipient links') stays out of the store.
 */
export function hashSignatureCode(config: Config, ref: PartyRef, code: string): string {
  const key = createHmac('sha256', keyringFor(config, 'sealing').primary.secret).update(CODE_KEY_PURPOSE).digest();
  return createHmac('sha256', key).update(`${ref.collectionId}:${ref.itemId}:${ref.recipientId}:${code}`).digest('hex');
}

/**
 * A new 6-digit code for a party: the decider records SIGNATURE_CODE_SENT (its hash, 10 minutes)
 * first, so a refused request (not their turn, too soon) sends nothing; then the messaging module
 * takes the code to the party's e-mail (EMAIL) or WhatsApp (PHONE), whatever the collection's
 * notification channel, since the code proves that contact.
 */
export async function requestSignatureCode(app: AppContext, ref: PartyRef, channel: ContactChannel) {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const written = await recordSignatureCodeSent(app, { ...ref, channel, codeHash: hashSignatureCode(app.config, ref, code) });
  const { state } = written;
  const recipient = state.recipients.find((r) => r.recipientId === ref.recipientId)!;
  const sent = state.items.find((i) => i.itemId === ref.itemId)!.details.signature!.codes.find((c) => c.recipientId === ref.recipientId)!;
  await queueMessage(app, {
    organizationId: ref.organizationId,
    dedupeKey: `signature-code:${ref.collectionId}:${ref.itemId}:${ref.recipientId}:${sent.sentAt}`,
    template: 'SIGNATURE_CODE',
    channels: [channel === 'EMAIL' ? 'EMAIL' : 'WHATSAPP'],
    to: { name: recipient.name, email: recipient.email, phone: recipient.phone },
    correlation: { collectionId: ref.collectionId, recipientId: ref.recipientId },
    content: {
      link: null,
      subjectName: state.subject.name,
      organizationName: (await organizationName(app.db, ref.organizationId)) ?? 'A empresa',
      operatorMessage: null,
      pendingItems: [],
      expiresAt: sent.expiresAt,
      code,
    },
  });
  return written;
}

/**
 * The code a party typed. A wrong code is recorded (the attempt counts) and then refused with the
 * attempts left, so the caller gets an error while the trail keeps the attempt.
 */
export async function confirmSignatureCode(app: AppContext, ref: PartyRef, code: string) {
  const typed = code.trim();
  if (!CODE_FORMAT.test(typed)) throw new DomainError('invalid', SignatureMessages.codeFormat);
  const written = await verifySignatureContact(app, { ...ref, codeHash: hashSignatureCode(app.config, ref, typed) });
  const attempt = written.state.items.find((i) => i.itemId === ref.itemId)!.details.signature?.codes.find((c) => c.recipientId === ref.recipientId);
  // The code is gone once it verified the contact; still there, it was wrong.
  if (written.position !== null && attempt) throw new DomainError('invalid', SignatureMessages.wrongCode(SIGNATURE_CODE_MAX_ATTEMPTS - attempt.failures));
  return written;
}

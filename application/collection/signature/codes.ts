import { createHmac, randomInt } from 'node:crypto';
import { keyringFor, type Config } from '../../../config/index.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import type { ContactChannel } from '../../../domain/collection/kinds/signature.ts';
import { DomainError } from '../../../domain/shared/errors.ts';
import { organizationName } from '../../../projections/identity/queries.ts';
import type { AppContext } from '../../context.ts';
import { planChannels } from '../../messaging/channel-order.ts';
import { queueMessage } from '../../messaging/commands.ts';
import { organizationChannelOrder } from '../../messaging/settings-commands.ts';
import { loadCollection } from '../commands.ts';
import { countCodeAttempt, countDailyCodeAttempt, forgetCodeAttempts } from './code-attempts.ts';
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
 * takes the code to the party's e-mail (EMAIL) or phone (PHONE: WhatsApp or SMS, in the party's,
 * the organization's or the deployment's order, one falling back to the other), whatever the collection's notification channel, since the
 * code proves that contact.
 */
export async function requestSignatureCode(app: AppContext, ref: PartyRef, channel: ContactChannel) {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const written = await recordSignatureCodeSent(app, { ...ref, channel, codeHash: hashSignatureCode(app.config, ref, code) });
  const { state } = written;
  const recipient = state.recipients.find((r) => r.recipientId === ref.recipientId)!;
  const sent = state.items.find((i) => i.itemId === ref.itemId)!.details.signature!.codes.find((c) => c.recipientId === ref.recipientId)!;
  const to = { name: recipient.name, email: recipient.email, phone: recipient.phone };
  await queueMessage(app, {
    organizationId: ref.organizationId,
    dedupeKey: `signature-code:${ref.collectionId}:${ref.itemId}:${ref.recipientId}:${sent.sentAt}`,
    template: 'SIGNATURE_CODE',
    ...planChannels(app.config, [channel === 'EMAIL' ? ['EMAIL'] : ['WHATSAPP', 'SMS']], to, {
      recipient: recipient.channelOrder,
      organization: await organizationChannelOrder(app, ref.organizationId),
    }),
    to,
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
 * Which try at the party's current code this is, counted before the decider sees the code, so
 * a wrong one (refused, nothing appended) still counts. 0 when there is no code to try (the
 * decider refuses, or finds the contact verified already).
 */
async function nextAttempt(app: AppContext, ref: PartyRef): Promise<number> {
  for (;;) {
    const state = await loadCollection(app, ref.collectionId);
    const code = state.items.find((i) => i.itemId === ref.itemId)?.details.signature?.codes.find((c) => c.recipientId === ref.recipientId);
    if (!code) return 0;
    const attempt = await countCodeAttempt(app.db, ref, code.sentAt);
    if (attempt !== null) return attempt;
  }
}

/**
 * Tries at all the codes of one item in one day (São Paulo's calendar day, the recipients'),
 * whichever party and code: past it, every try is refused until the next day. Four codes' worth
 * of tries: a party who mistyped a few codes still gets through, a guesser gets 20 of a million.
 */
export const SIGNATURE_CODE_ATTEMPTS_PER_ITEM_PER_DAY = 20;
const DAY = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' });

/**
 * The code a party typed. Every try counts (outside the stream, code-attempts.ts), against the
 * code and against the item's day; a wrong code is refused with the attempts left and appends nothing; past
 * SIGNATURE_CODE_MAX_ATTEMPTS tries even the right code is refused until a new one is sent.
 */
export async function confirmSignatureCode(app: AppContext, ref: PartyRef, code: string) {
  const typed = code.trim();
  if (!CODE_FORMAT.test(typed)) throw new DomainError('invalid', SignatureMessages.codeFormat);
  const attempt = await nextAttempt(app, ref);
  // Only a try at a code is a guess (without one, the decider refuses it anyway).
  if (attempt > 0 && (await countDailyCodeAttempt(app.db, ref, DAY.format(app.clock.now()))) > SIGNATURE_CODE_ATTEMPTS_PER_ITEM_PER_DAY) {
    throw new DomainError('too_many', SignatureMessages.tooManyAttemptsToday);
  }
  const written = await verifySignatureContact(app, { ...ref, codeHash: hashSignatureCode(app.config, ref, typed), attempt });
  if (written.position !== null) await forgetCodeAttempts(app.db, ref);
  return written;
}

import { DomainError } from '../../shared/errors.ts';
import type { CollectionCommand } from '../commands.ts';
import { entry, existing, itemOf, live, recipientOf, unresolved } from '../decide-kit.ts';
import { OPERATOR_ITEM_STATUSES } from '../enums.ts';
import { SignatureMessages } from '../messages.ts';
import type { CollectionModuleEvent } from '../payloads.ts';
import { isClosed, isResolved, type CollectionState } from '../state.ts';
import type { Complete } from './kind.ts';
import {
  allSigned,
  INTERNAL_SIGNATURE_PROVIDER,
  SIGNATURE_CODE_MAX_ATTEMPTS,
  SIGNATURE_CODE_RESEND_MS,
  SIGNATURE_CODE_TTL_MS,
  passedIdentity,
  signatureConfigOf,
  signaturePartiesOf,
  signatureStateOf,
} from './signature-parties.ts';

type PartyCommand = Extract<CollectionCommand, { type: 'SendSignatureCode' | 'VerifySignatureContact' | 'SignItem' | 'DeclineSignature' }>;

/** What every party's step checks: a live collection, a SIGNATURE item still collecting, a party that has not signed. */
function partyContext(command: PartyCommand, state: CollectionState) {
  const collectionId = live(state, command.organizationId);
  const item = unresolved(itemOf(state, command.itemId));
  const config = signatureConfigOf(item);
  const recipient = recipientOf(state, command.recipientId);
  const parties = signaturePartiesOf(state, item);
  const party = parties.find((p) => p.recipientId === recipient.recipientId);
  if (!party) throw new DomainError('not_found', SignatureMessages.notAParty);
  const signature = signatureStateOf(item);
  if (signature.completedAt !== null) throw new DomainError('conflict', SignatureMessages.alreadyCompleted);
  if (party.signedAt !== null) throw new DomainError('conflict', SignatureMessages.alreadySigned);
  // A decline stops the item until the operator decides (a REJECT with a reason asks the parties again).
  if (OPERATOR_ITEM_STATUSES.includes(item.status)) throw new DomainError('conflict', SignatureMessages.declined);
  return { collectionId, item, config, recipient, parties, party, signature, where: { itemId: item.itemId, recipientId: recipient.recipientId } };
}

/** Ordered: every earlier party has signed. SIGNATURE_AND_IDENTITY: the party passed an identity check. */
function readyToSign(context: ReturnType<typeof partyContext>, state: CollectionState): void {
  const { config, parties, party, item } = context;
  if (config.ordered) {
    const waiting = parties.find((p) => p.order < party.order && p.signedAt === null);
    if (waiting) {
      const name = state.recipients.find((r) => r.recipientId === waiting.recipientId)?.name || 'outra parte';
      throw new DomainError('conflict', SignatureMessages.awaitingTurn(name));
    }
  }
  if (config.flow === 'SIGNATURE_AND_IDENTITY' && !passedIdentity(item, party.recipientId)) throw new DomainError('conflict', SignatureMessages.identityFirst);
}

function decideParty(command: PartyCommand, state: CollectionState): CollectionModuleEvent[] {
  const context = partyContext(command, state);
  const { collectionId, recipient, party, signature, where } = context;
  const at = Date.parse(command.at);
  switch (command.type) {
    case 'SendSignatureCode': {
      readyToSign(context, state);
      if (party.verifiedAt !== null) throw new DomainError('conflict', SignatureMessages.contactAlreadyVerified);
      if (command.channel === 'EMAIL' && !recipient.email) throw new DomainError('invalid', SignatureMessages.noEmail);
      if (command.channel === 'PHONE' && !recipient.phone) throw new DomainError('invalid', SignatureMessages.noPhone);
      const last = signature.codes.find((c) => c.recipientId === party.recipientId);
      if (last && at - Date.parse(last.sentAt) < SIGNATURE_CODE_RESEND_MS) throw new DomainError('too_many', SignatureMessages.codeTooSoon);
      const expiresAt = new Date(at + SIGNATURE_CODE_TTL_MS).toISOString();
      return [entry('SignatureCodeSent', command, collectionId, where, { channel: command.channel }, { codeHash: command.codeHash, expiresAt })];
    }
    case 'VerifySignatureContact': {
      // Confirmed already (a second click): nothing new.
      if (party.verifiedAt !== null) return [];
      const code = signature.codes.find((c) => c.recipientId === party.recipientId);
      if (!code) throw new DomainError('conflict', SignatureMessages.noCode);
      if (command.attempt > SIGNATURE_CODE_MAX_ATTEMPTS) throw new DomainError('too_many', SignatureMessages.tooManyAttempts);
      if (at > Date.parse(code.expiresAt)) throw new DomainError('conflict', SignatureMessages.codeExpired);
      // A wrong code is refused like any failed command (nothing appended); the application counted the try.
      if (command.codeHash !== code.codeHash) throw new DomainError('invalid', SignatureMessages.wrongCode(SIGNATURE_CODE_MAX_ATTEMPTS - command.attempt));
      const attemptsLeft = SIGNATURE_CODE_MAX_ATTEMPTS - (command.attempt - 1);
      return [entry('SignatureContactVerified', command, collectionId, where, { channel: code.channel, verified: true, attemptsLeft })];
    }
    case 'SignItem': {
      readyToSign(context, state);
      if (party.verifiedAt === null || party.verifiedChannel === null) throw new DomainError('conflict', SignatureMessages.contactNotVerified);
      const documentSha256 = signature.documentSha256;
      if (!documentSha256) throw new DomainError('invalid', SignatureMessages.documentRequired);
      const evidence = {
        contactChannel: party.verifiedChannel,
        contactVerifiedAt: party.verifiedAt,
        signedAt: command.at,
        ip: command.ip,
        socketAddress: command.socketAddress ?? null,
        forwardedFor: command.forwardedFor ?? null,
        userAgent: command.userAgent,
        documentSha256,
      };
      const collected = entry('SignatureCollected', command, collectionId, where, { order: party.order, documentSha256, contactChannel: party.verifiedChannel }, { evidence });
      const parties = context.parties.map((p) => (p.recipientId === party.recipientId ? { ...p, signedAt: command.at } : p));
      if (!allSigned(parties)) return [collected];
      // The last party's signature completes the item's signatures in the same decision.
      const completed = entry(
        'SignatureCompleted',
        command,
        collectionId,
        { itemId: where.itemId },
        {
          provider: INTERNAL_SIGNATURE_PROVIDER,
          parties: parties.map((p) => p.recipientId),
          contentHash: documentSha256,
          signedDocument: true,
        },
      );
      return [collected, completed];
    }
    case 'DeclineSignature': {
      const reason = command.reason.trim();
      if (!reason) throw new DomainError('invalid', SignatureMessages.declineReasonRequired);
      return [entry('SignatureDeclined', command, collectionId, where, { reason })];
    }
  }
}

export function decideSignature(command: CollectionCommand, state: CollectionState, complete: Complete): CollectionModuleEvent[] | null {
  switch (command.type) {
    case 'SendSignatureCode':
    case 'VerifySignatureContact':
    case 'SignItem':
    case 'DeclineSignature':
      return decideParty(command, state);
    case 'RecordSignedDocument': {
      // A copy may arrive after the collection closed (canceled meanwhile): it is still recorded.
      const collectionId = existing(state, command.organizationId);
      const item = itemOf(state, command.itemId);
      const config = signatureConfigOf(item);
      const signature = signatureStateOf(item);
      if (signature.completedAt === null) throw new DomainError('conflict', SignatureMessages.notCompleted);
      const isParty = signaturePartiesOf(state, item).some((p) => p.recipientId === command.recipientId);
      if (config.mode === 'JOINT' ? command.recipientId !== null : !isParty) throw new DomainError('invalid', SignatureMessages.copyRecipient);
      // The worker's retry of a copy already recorded changes nothing.
      if (signature.signedCopies.some((c) => c.recipientId === command.recipientId)) return [];
      const { provider, sha256, blobId } = command;
      const payload = { provider, sha256, blobId, ...(command.signature ? { signature: command.signature } : {}) };
      return complete(command, state, [entry('SignatureDocumentGenerated', command, collectionId, { itemId: item.itemId, recipientId: command.recipientId }, payload)]);
    }
    case 'RecordProviderOutcome': {
      const collectionId = existing(state, command.organizationId);
      const item = itemOf(state, command.itemId);
      signatureConfigOf(item);
      // A callback delivered again after the collection closed is acknowledged without news.
      if (isClosed(state)) return [];
      const { reason, provider } = command;
      const where = { itemId: item.itemId };
      if (command.outcome === 'CANCELED') return [entry('CollectionCanceled', command, collectionId, where, { reason, provider })];
      const expiredItemIds = state.items.filter((i) => !isResolved(i)).map((i) => i.itemId);
      return [entry('CollectionExpired', command, collectionId, where, { expiredItemIds, reason, provider })];
    }
    default:
      return null;
  }
}

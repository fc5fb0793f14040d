import type { ClientOrigin } from '../../../domain/collection/commands.ts';
import type { ContactChannel, SignedCopySignature } from '../../../domain/collection/kinds/signature.ts';
import type { AppContext } from '../../context.ts';
import { recipientActor, SYSTEM_ACTOR } from '../actor.ts';
import { runCollectionCommand } from '../commands.ts';

/** The commands of a SIGNATURE item: a party's steps on the recipient page, then the system's records. */
type Clocked = Pick<AppContext, 'store' | 'clock'>;
type ItemRef = { organizationId: string; collectionId: string; itemId: string };
type PartyRef = ItemRef & { recipientId: string };

/** The code itself is drawn and sent by codes.ts; only its hash reaches the stream. */
export const recordSignatureCodeSent = (app: Clocked, ref: PartyRef & { channel: ContactChannel; codeHash: string }) =>
  runCollectionCommand(app, ref.organizationId, ref.collectionId, recipientActor(ref.recipientId), {
    type: 'SendSignatureCode',
    itemId: ref.itemId,
    recipientId: ref.recipientId,
    channel: ref.channel,
    codeHash: ref.codeHash,
  });

/** `attempt`: the try's number at the current code (code-attempts.ts). */
export const verifySignatureContact = (app: Clocked, ref: PartyRef & { codeHash: string; attempt: number }) =>
  runCollectionCommand(app, ref.organizationId, ref.collectionId, recipientActor(ref.recipientId), {
    type: 'VerifySignatureContact',
    itemId: ref.itemId,
    recipientId: ref.recipientId,
    codeHash: ref.codeHash,
    attempt: ref.attempt,
  });

export const signItem = (app: Clocked, ref: PartyRef & { origin: ClientOrigin; userAgent: string | null }) =>
  runCollectionCommand(app, ref.organizationId, ref.collectionId, recipientActor(ref.recipientId), {
    type: 'SignItem',
    itemId: ref.itemId,
    recipientId: ref.recipientId,
    ...ref.origin,
    userAgent: ref.userAgent,
  });

export const declineSignature = (app: Clocked, ref: PartyRef & { reason: string }) =>
  runCollectionCommand(app, ref.organizationId, ref.collectionId, recipientActor(ref.recipientId), {
    type: 'DeclineSignature',
    itemId: ref.itemId,
    recipientId: ref.recipientId,
    reason: ref.reason,
  });

/**
 * The signed PDF copy is stored (blob `blobId`, SHA-256 `sha256`): SIGNATURE_DOCUMENT_GENERATED,
 * and the item resolves (VALIDATED) once every copy it needs exists (JOINT: one, recipientId null;
 * INDIVIDUAL: one per party, recipientId the party), completing the collection when it was the last.
 * A copy already recorded appends nothing (position null), so a worker may retry.
 */
export const recordSignedDocument = (app: Clocked, input: ItemRef & { recipientId: string | null; blobId: string; sha256: string; provider: string; signature?: SignedCopySignature }) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, SYSTEM_ACTOR, {
    type: 'RecordSignedDocument',
    itemId: input.itemId,
    recipientId: input.recipientId,
    blobId: input.blobId,
    sha256: input.sha256,
    provider: input.provider,
    ...(input.signature ? { signature: input.signature } : {}),
  });

/** An external provider's envelope canceled or expired: the collection closes (collection.canceled / .expired). */
export const recordProviderOutcome = (app: Clocked, input: ItemRef & { outcome: 'CANCELED' | 'EXPIRED'; reason: string; provider: string }) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, SYSTEM_ACTOR, {
    type: 'RecordProviderOutcome',
    itemId: input.itemId,
    outcome: input.outcome,
    reason: input.reason,
    provider: input.provider,
  });

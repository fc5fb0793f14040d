import { DomainError } from '../../shared/errors.ts';
import type { ItemDefinition } from '../definition.ts';
import { SIGNATURE_FLOWS, SIGNATURE_MODES } from '../enums.ts';
import { SignatureMessages } from '../messages.ts';
import type { CollectionState, ItemState, RecipientState } from '../state.ts';
import type { SignatureConfig, SignatureItemState, SignatureParty } from './signature.ts';

/** The provider name of the service's own signing. */
export const INTERNAL_SIGNATURE_PROVIDER = 'interno';
export const SIGNATURE_CODE_TTL_MS = 10 * 60_000;
export const SIGNATURE_CODE_MAX_ATTEMPTS = 5;
/** A new code no sooner than this after the last one: each code is an e-mail or a text message. */
export const SIGNATURE_CODE_RESEND_MS = 60_000;

/**
 * A SIGNATURE item needs its config (mode and flow; ordered only when JOINT) and no other kind
 * carries one. The document may be missing here: a template leaves it to the collection, and
 * the application refuses a collection whose SIGNATURE item names none (or a missing or non-PDF one).
 */
export function validateSignatureItem(item: Pick<ItemDefinition, 'kind' | 'config'>): void {
  const config = item.config?.signature;
  if (item.kind !== 'SIGNATURE') {
    if (config) throw new DomainError('invalid', SignatureMessages.configOnOtherKind);
    return;
  }
  if (!config || !SIGNATURE_MODES.includes(config.mode) || !SIGNATURE_FLOWS.includes(config.flow)) {
    throw new DomainError('invalid', SignatureMessages.configRequired);
  }
  if (config.ordered && config.mode !== 'JOINT') throw new DomainError('invalid', SignatureMessages.orderedOnlyJoint);
}

export function signatureConfigOf(item: ItemState): SignatureConfig {
  const config = item.config?.signature;
  if (item.kind !== 'SIGNATURE' || !config) throw new DomainError('invalid', SignatureMessages.notASignature);
  return config;
}

export function signatureStateOf(item: ItemState): SignatureItemState {
  return (
    item.details.signature ?? {
      documentSha256: item.config?.signature?.documentSha256 ?? null,
      parties: [],
      codes: [],
      completedAt: null,
      signedCopies: [],
    }
  );
}

/** SIGNATURE_AND_IDENTITY: the party passed an identity check (APROVADO) on this item; a check held for the operator (a sandbox one outside sandbox mode) does not count. */
export const passedIdentity = (item: ItemState, recipientId: string) =>
  (item.details.identity?.checks ?? []).some((check) => check.recipientId === recipientId && check.verdict === 'APROVADO' && !check.heldForOperator);

/** The recipients asked to sign the item, in the collection's order. */
export function partyRecipients(state: CollectionState, itemId: string): RecipientState[] {
  return state.recipients.filter((r) => r.itemIds.includes(itemId));
}

/** Every party of the item, in order: the item's recipients with what each has done so far. */
export function signaturePartiesOf(state: CollectionState, item: ItemState): SignatureParty[] {
  const recorded = signatureStateOf(item).parties;
  return partyRecipients(state, item.itemId).map(
    (recipient, index) =>
      recorded.find((p) => p.recipientId === recipient.recipientId) ?? {
        recipientId: recipient.recipientId,
        order: index + 1,
        verifiedChannel: null,
        verifiedAt: null,
        signedAt: null,
        evidence: null,
        declinedAt: null,
        declineReason: null,
      },
  );
}

/**
 * Every party signed: the completion of the item's signatures (JOINT: one document; INDIVIDUAL:
 * each party their own copy, so the same rule). Every recipient of the item is a mandatory party.
 */
export const allSigned = (parties: readonly SignatureParty[]) => parties.length > 0 && parties.every((p) => p.signedAt !== null);

/** The copies a completed item needs before it resolves: one for JOINT, one per party for INDIVIDUAL. */
export function copiesComplete(config: SignatureConfig, signature: SignatureItemState, parties: readonly SignatureParty[]): boolean {
  if (config.mode === 'JOINT') return signature.signedCopies.length > 0;
  return parties.every((p) => signature.signedCopies.some((c) => c.recipientId === p.recipientId));
}

import type { CollectionModuleEvent } from '../payloads.ts';
import { advance, withItem, withRecipient, type CollectionState, type ItemState } from '../state.ts';
import { copiesComplete, signatureConfigOf, signaturePartiesOf, signatureStateOf } from './signature-parties.ts';
import type { SignatureItemState, SignatureParty } from './signature.ts';

type Change = (signature: SignatureItemState, item: ItemState) => Partial<ItemState> & { signature: SignatureItemState };

function withSignature(state: CollectionState, itemId: string | null, change: Change): CollectionState {
  return withItem(state, itemId, (item) => {
    const { signature, ...rest } = change(signatureStateOf(item), item);
    return { ...item, ...rest, details: { ...item.details, signature } };
  });
}

/** One party's record changed (taken from the full party list so its order is kept). */
function withParty(state: CollectionState, itemId: string | null, recipientId: string | null, change: (party: SignatureParty) => SignatureParty, itemChange: Partial<ItemState> = {}): CollectionState {
  return withSignature(state, itemId, (signature, item) => {
    const party = signaturePartiesOf(state, item).find((p) => p.recipientId === recipientId);
    if (!party) return { signature };
    const parties = [...signature.parties.filter((p) => p.recipientId !== recipientId), change(party)].sort((a, b) => a.order - b.order);
    return { ...itemChange, signature: { ...signature, parties } };
  });
}

export function evolveSignature(state: CollectionState, event: CollectionModuleEvent): CollectionState | null {
  const { data } = event;
  const at = data.occurredAt;
  switch (event.type) {
    case 'SignatureCodeSent': {
      const code = { recipientId: data.recipientId!, channel: event.data.payload.channel, codeHash: event.data.codeHash, sentAt: at, expiresAt: event.data.expiresAt };
      return withSignature(state, data.itemId, (signature) => ({ signature: { ...signature, codes: [...signature.codes.filter((c) => c.recipientId !== data.recipientId), code] } }));
    }
    case 'SignatureContactVerified': {
      const { channel, verified } = event.data.payload;
      // A wrong code recorded by an earlier version (verified false): its attempt was counted in the stream then; nothing to apply now.
      if (!verified) return state;
      const codes = (signature: SignatureItemState) => signature.codes.filter((c) => c.recipientId !== data.recipientId);
      const next = withSignature(state, data.itemId, (signature) => ({ signature: { ...signature, codes: codes(signature) } }));
      return withParty(next, data.itemId, data.recipientId, (p) => ({ ...p, verifiedChannel: channel, verifiedAt: at }));
    }
    case 'SignatureCollected': {
      // An erased evidence reads as {}: the signature stays a fact, its personal parts are gone.
      const evidence = event.data.evidence?.signedAt ? event.data.evidence : null;
      const signed = withParty(state, data.itemId, data.recipientId, (p) => ({ ...p, signedAt: at, evidence, declinedAt: null, declineReason: null }));
      const started = { ...signed, status: signed.status === 'SENT' ? ('IN_PROGRESS' as const) : signed.status };
      return withRecipient(started, data.recipientId, (r) => ({ ...r, activity: advance(r.activity, 'IN_PROGRESS') }));
    }
    case 'SignatureCompleted':
      // The signatures are complete; the item resolves when its signed copy is recorded.
      return withSignature(state, data.itemId, (signature) => ({ status: 'PROCESSING', signature: { ...signature, completedAt: at } }));
    case 'SignatureDeclined': {
      const { reason } = event.data.payload;
      return withParty(state, data.itemId, data.recipientId, (p) => ({ ...p, declinedAt: at, declineReason: reason }), { status: 'AWAITING_OPERATOR' });
    }
    case 'SignatureDocumentGenerated': {
      const { provider, sha256, blobId, signature: described } = event.data.payload;
      return withSignature(state, data.itemId, (signature, item) => {
        const copy = { recipientId: data.recipientId, blobId, sha256, provider, generatedAt: at, ...(described ? { signature: described } : {}) };
        const next = { ...signature, signedCopies: [...signature.signedCopies, copy] };
        const done = copiesComplete(signatureConfigOf(item), next, signaturePartiesOf(state, item));
        return done ? { status: 'VALIDATED', resolvedAt: at, signature: next } : { signature: next };
      });
    }
    default:
      return null;
  }
}

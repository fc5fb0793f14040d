import { DomainError } from '../../shared/errors.ts';
import type { ClientOrigin } from '../commands.ts';
import type { CollectionEventData } from '../events.ts';
import type { CollectionCommand } from '../commands.ts';
import { entry, existing, itemOf, live, recipientOf, unresolved } from '../decide-kit.ts';
import { CollectionMessages } from '../messages.ts';
import { advance, withItem, withRecipient, type CollectionState } from '../state.ts';
import type { CollectionKind } from './kind.ts';

/** A CONSENT item's term: `type` names the input key kyc.consentimento_<type>; `hash` is the SHA-256 of `text`. */
export interface ConsentConfig {
  type: string;
  version: number;
  text: string;
  hash: string;
}

export interface ConsentItemState {
  recipientId: string | null;
  acceptedAt: string;
  termHash: string;
  /**
   * The evidence: where the acceptance came from. Personal data, sealed in the store with the
   * person's key, so it reads as erased once they are. Absent from rows folded before it was kept.
   */
  ip?: string | null;
  userAgent?: string | null;
  /**
   * The person withdrew it (LGPD art. 8 §5: consent is revocable at any time): the acceptance
   * stays as the record of what was agreed then; from this moment the term no longer holds.
   */
  revoked?: { at: string; actorType: CollectionEventData['actorType']; reason: string | null };
}

export interface ConsentPayloads {
  ConsentAccepted: { type: string; version: number; termHash: string };
  ConsentRevoked: { type: string; version: number; termHash: string; reason: string | null };
}

export interface ConsentExtras {
  ConsentAccepted: ClientOrigin & { userAgent: string | null };
}

/**
 * The data of the legacy OPTIN webhook (optin.updated), which follows consents: the contract names
 * the type and its flow, not its fields. Who opted in (the recipient, by id), where (collection and
 * item), to which term, when, and the opt-in's state; the address and user agent never leave.
 */
export function optInWebhookData(data: CollectionEventData<ConsentPayloads['ConsentAccepted']>, status: 'ACCEPTED' | 'REVOKED') {
  const { type, version, termHash } = data.payload;
  return { collectionId: data.collectionId, itemId: data.itemId, recipientId: data.recipientId, status, type, version, termHash, occurredAt: data.occurredAt };
}

/** The policy input key an accepted term sets to true. */
export const consentInputKey = (type: string) => `kyc.consentimento_${type}`;

/** Who accepted comes from the envelope; address and user agent are personal data kept beside it. */
export type ConsentCommand =
  | ({ type: 'AcceptConsent'; itemId: string; recipientId: string | null; termHash: string; userAgent: string | null } & ClientOrigin)
  /** By the person through their link (recipientId), or recorded by the organization on their request. */
  | { type: 'RevokeConsent'; itemId: string; recipientId: string | null; reason: string | null };

const CONSENT_TYPE = /^[a-z][a-z0-9_]{0,59}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkConsentConfig(consent: ConsentConfig | undefined): void {
  const valid =
    consent !== undefined &&
    typeof consent.type === 'string' &&
    CONSENT_TYPE.test(consent.type) &&
    Number.isInteger(consent.version) &&
    consent.version >= 1 &&
    typeof consent.text === 'string' &&
    consent.text.trim().length > 0 &&
    typeof consent.hash === 'string' &&
    SHA256_HEX.test(consent.hash);
  if (!valid) throw new DomainError('invalid', CollectionMessages.consentRequired);
}

/**
 * Withdrawing an accepted term. Possible whatever the collection's state, closed ones included:
 * the right to revoke outlives the request that asked for the consent. The item stays resolved
 * (the acceptance happened); the term's policy input turns false and the opt-in flow says REVOKED.
 */
function revoke(command: Extract<ConsentCommand, { type: 'RevokeConsent' }> & CollectionCommand, state: CollectionState) {
  const collectionId = existing(state, command.organizationId);
  const item = itemOf(state, command.itemId);
  const term = item.config?.consent;
  if (item.kind !== 'CONSENT' || !term) throw new DomainError('invalid', CollectionMessages.notAConsent);
  if (command.recipientId !== null && !recipientOf(state, command.recipientId).itemIds.includes(item.itemId)) {
    throw new DomainError('not_found', CollectionMessages.itemNotOfRecipient);
  }
  const accepted = item.details.consent;
  if (!accepted) throw new DomainError('conflict', CollectionMessages.consentNotAccepted);
  if (accepted.revoked) throw new DomainError('conflict', CollectionMessages.consentAlreadyRevoked);
  const payload = { type: term.type, version: term.version, termHash: accepted.termHash, reason: command.reason };
  return [entry('ConsentRevoked', command, collectionId, { itemId: item.itemId, recipientId: accepted.recipientId }, payload)];
}

/**
 * A CONSENT item is resolved by the person's acceptance of the exact term they read: the page
 * sends back the hash of the term it showed, and a term changed since (a stale page) is refused.
 */
export const consentKind: CollectionKind = {
  decide(command, state, complete) {
    if (command.type === 'RevokeConsent') return revoke(command, state);
    if (command.type !== 'AcceptConsent') return null;
    const collectionId = live(state, command.organizationId);
    const item = itemOf(state, command.itemId);
    const term = item.config?.consent;
    if (item.kind !== 'CONSENT' || !term) throw new DomainError('invalid', CollectionMessages.notAConsent);
    if (command.recipientId !== null && !recipientOf(state, command.recipientId).itemIds.includes(item.itemId)) {
      throw new DomainError('not_found', CollectionMessages.itemNotOfRecipient);
    }
    unresolved(item);
    if (command.termHash !== term.hash) throw new DomainError('conflict', CollectionMessages.consentStale);
    const where = { itemId: item.itemId, recipientId: command.recipientId };
    const payload = { type: term.type, version: term.version, termHash: term.hash };
    return complete(command, state, [
      entry('ConsentAccepted', command, collectionId, where, payload, {
        ip: command.ip,
        socketAddress: command.socketAddress ?? null,
        forwardedFor: command.forwardedFor ?? null,
        userAgent: command.userAgent,
      }),
    ]);
  },
  evolve(state, event) {
    if (event.type === 'ConsentRevoked') {
      const { data } = event;
      return withItem(state, data.itemId, (item) => {
        const accepted = item.details.consent;
        if (!accepted) return item;
        const revoked = { at: data.occurredAt, actorType: data.actorType, reason: data.payload.reason };
        return { ...item, details: { ...item.details, consent: { ...accepted, revoked } } };
      });
    }
    if (event.type !== 'ConsentAccepted') return null;
    const { data } = event;
    const consent: ConsentItemState = { recipientId: data.recipientId, acceptedAt: data.occurredAt, termHash: data.payload.termHash, ip: data.ip ?? null, userAgent: data.userAgent ?? null };
    const next = withItem(state, data.itemId, (item) => ({ ...item, status: 'VALIDATED', resolvedAt: data.occurredAt, details: { ...item.details, consent } }));
    const started = { ...next, status: next.status === 'SENT' ? ('IN_PROGRESS' as const) : next.status };
    return withRecipient(started, data.recipientId, (r) => ({ ...r, activity: advance(r.activity, 'IN_PROGRESS') }));
  },
  validateItem(item) {
    if (item.kind !== 'CONSENT') {
      if (item.config?.consent) throw new DomainError('invalid', CollectionMessages.consentOnlyOnConsent);
      return;
    }
    checkConsentConfig(item.config?.consent);
  },
};

import { createHash } from 'node:crypto';
import canonicalizeCjs from 'canonicalize';
import type { CollectionEventData } from '../../domain/collection/events.ts';

/**
 * The hash chain of a collection's trail (docs/collection-trail.md). scripts/verify-trail.ts
 * recomputes the same three formulas with nothing of the service; change one, change both.
 */

/** RFC 8785. The package is CommonJS (module.exports is the function) while its types declare an ES default. */
export const canonicalize = canonicalizeCjs as unknown as (input: unknown) => string | undefined;

/** The chain hash before the first entry. */
export const TRAIL_GENESIS = '0'.repeat(64);

/** The statuses whose entries get their chain head signed (a seal). */
export const SEALED_EVENT_TYPES: readonly string[] = ['CollectionCreated', 'CollectionSent', 'CollectionCompleted', 'CollectionExpired', 'CollectionCanceled'];

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The envelope only: fields an event carries beyond it (a definition for evolve) are not part of the trail. */
export function trailEnvelope(data: Record<string, unknown>): CollectionEventData {
  const d = data as unknown as CollectionEventData;
  return {
    organizationId: d.organizationId,
    collectionId: d.collectionId,
    itemId: d.itemId ?? null,
    recipientId: d.recipientId ?? null,
    action: d.action,
    actorType: d.actorType,
    actorId: d.actorId ?? null,
    occurredAt: d.occurredAt,
    payload: d.payload ?? {},
  };
}

/** SHA-256 (hex) of the entry's RFC 8785 (JCS) encoding. */
export const entryHashOf = (entry: CollectionEventData): string => sha256(canonicalize(entry)!);

/** SHA-256 (hex) of the previous chain hash followed by this entry's hash, both as hex text. */
export const chainHashOf = (previousChainHash: string, entryHash: string): string => sha256(previousChainHash + entryHash);

/** What a seal signs: the chain head at one entry of one collection, at a time, under a key. */
export interface SealedHead {
  collectionId: string;
  seq: number;
  chainHash: string;
  signedAt: string;
  keyId: string;
}

/**
 * The bytes a seal's RFC 3161 timestamp is over (its imprint is their SHA-256): the JCS encoding of
 * the signed head and its signature, so the TSA's time proves this very signature existed then.
 */
export const sealDigestInput = (seal: SealedHead & { signature: string }): Buffer =>
  Buffer.from(canonicalize({ collectionId: seal.collectionId, seq: seal.seq, chainHash: seal.chainHash, signedAt: seal.signedAt, keyId: seal.keyId, signature: seal.signature })!, 'utf8');

/** The bytes an Ed25519 seal signature covers: the JCS encoding of exactly these five fields. */
export const sealMessage = (head: SealedHead): Buffer =>
  Buffer.from(canonicalize({ collectionId: head.collectionId, seq: head.seq, chainHash: head.chainHash, signedAt: head.signedAt, keyId: head.keyId })!, 'utf8');

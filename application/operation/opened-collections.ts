import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { collectionStream } from '../../domain/collection/events.ts';
import type { App } from '../collection/commands.ts';

/** What the contract and COLLECTION steps share about the collections an execution opens. */

/** Contacts as the proposal holds them (free text): an e-mail that does not look like one, or a phone that is not valid, is left out. */
export function contactOf(contact: { email: string | null; phone: string | null } | null): { email: string | null; phone: string | null } {
  const email = contact?.email?.trim().toLowerCase();
  const phone = contact?.phone ? parsePhoneNumberFromString(contact.phone, 'BR') : undefined;
  return { email: email && email.length <= 254 && /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(email) ? email : null, phone: phone?.isValid() ? phone.number : null };
}

/** How a collection an execution opened has ended so far, from its own stream (the first of these events), or null. */
export type CollectionEnding = { kind: 'SIGNATURE_COMPLETED'; provider: string; contentHash: string } | { kind: 'COMPLETED' } | { kind: 'CANCELED' | 'EXPIRED'; reason: string | null };

export async function collectionEnding(app: Pick<App, 'store'>, collectionId: string): Promise<CollectionEnding | null> {
  for (const event of await app.store.readStream(collectionStream(collectionId))) {
    const payload = (event.data as { payload: Record<string, unknown> }).payload;
    switch (event.type) {
      case 'SignatureCompleted':
        return { kind: 'SIGNATURE_COMPLETED', provider: String(payload.provider), contentHash: String(payload.contentHash) };
      case 'CollectionCompleted':
        return { kind: 'COMPLETED' };
      case 'CollectionCanceled':
        return { kind: 'CANCELED', reason: (payload.reason as string | null) ?? null };
      case 'CollectionExpired':
        return { kind: 'EXPIRED', reason: (payload.reason as string | undefined) ?? null };
    }
  }
  return null;
}

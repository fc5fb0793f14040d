import { createHash } from 'node:crypto';
import type { ConsentConfig } from '../../domain/collection/kinds/consent.ts';
import type { ItemConfig } from '../../domain/collection/kinds/config.ts';

/** An item's config as a caller writes it: the service computes what a caller may not set (the term's hash). */
export type ItemConfigInput = Omit<ItemConfig, 'consent'> & { consent?: Omit<ConsentConfig, 'hash'> & { hash?: string } };

/** The config as stored: a consent term carries the SHA-256 of its text, whatever the caller sent. */
export function completeItemConfig(input: ItemConfigInput | undefined): ItemConfig | undefined {
  if (!input) return undefined;
  const { consent, ...rest } = input;
  if (!consent) return rest;
  return { ...rest, consent: { ...consent, hash: createHash('sha256').update(consent.text, 'utf8').digest('hex') } };
}

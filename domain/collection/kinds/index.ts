import type { Module } from '../../identity/access.ts';
import { DomainError } from '../../shared/errors.ts';
import type { ItemDefinition } from '../definition.ts';
import { CollectionMessages } from '../messages.ts';
import { consentKind } from './consent.ts';
import { formKind } from './form.ts';
import { identityKind } from './identity.ts';
import type { CollectionKind } from './kind.ts';
import { signatureKind } from './signature.ts';
import { signedDocumentKind } from './signed-document.ts';

/** Every item kind with its own commands and events (one line each; the file merges by union). */
export const COLLECTION_KINDS: readonly CollectionKind[] = [formKind, consentKind, identityKind, signatureKind, signedDocumentKind];

/** Every kind's refusal of a misconfigured item (templates and collections call it for each item). */
export function validateItemConfig(item: Parameters<CollectionKind['validateItem']>[0]): void {
  for (const kind of COLLECTION_KINDS) kind.validateItem(item);
}

/** Refuses (403, naming it) the first item that needs a module the organization did not contract. */
export function refuseUncontractedItems(items: ReadonlyArray<Pick<ItemDefinition, 'key' | 'kind' | 'config'>>, modules: readonly Module[]): void {
  for (const item of items) {
    for (const kind of COLLECTION_KINDS) {
      const module = kind.requiredModule?.(item);
      if (module && !modules.includes(module)) throw new DomainError('forbidden', CollectionMessages.itemNotContracted(item.key, item.kind, module));
    }
  }
}

import { consentKind } from './consent.ts';
import { formKind } from './form.ts';
import { identityKind } from './identity.ts';
import type { CollectionKind } from './kind.ts';
import { signatureKind } from './signature.ts';
import { signedDocumentKind } from './signed-document.ts';

/** Every item kind with its own commands and events (one line each; the file merges by union). */
export const COLLECTION_KINDS: readonly CollectionKind[] = [
  formKind,
  consentKind,
  identityKind,
  signatureKind,
  signedDocumentKind,
];

/** Every kind's refusal of a misconfigured item (templates and collections call it for each item). */
export function validateItemConfig(item: Parameters<CollectionKind['validateItem']>[0]): void {
  for (const kind of COLLECTION_KINDS) kind.validateItem(item);
}

import { documentOpinionProvenance } from '../registry/document-events.ts';
import { identityCheckProvenance } from './kinds/identity.ts';
import type { CollectionState } from './state.ts';

/**
 * The collection holds a sandbox result: a file's opinion or an identity check a sandbox producer
 * gave (the keyword analyser, the sandbox identity provider), or a copy signed with the self-signed
 * default certificate. Whoever reads it must not take it for a real one.
 */
export function holdsSandboxResult(state: CollectionState): boolean {
  return state.items.some(
    (item) =>
      item.files.some((file) => file.opinion !== null && documentOpinionProvenance(file.opinion).sandbox === true) ||
      (item.details.identity?.checks ?? []).some((check) => identityCheckProvenance(check).sandbox) ||
      (item.details.signature?.signedCopies ?? []).some((copy) => copy.signature?.provenance?.sandbox === true),
  );
}

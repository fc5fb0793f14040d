import { DomainError } from '../../shared/errors.ts';
import { entry, existing, itemOf } from '../decide-kit.ts';
import type { ItemState } from '../state.ts';
import type { CollectionKind } from './kind.ts';
import type { SignedCopy } from './signature.ts';

/**
 * The signed PDF copy of a SIGNATURE item once it exists: its download. The copy itself is
 * produced by application/collection/signed-document and recorded by the SIGNATURE kind
 * (RecordSignedDocument); this part only records that someone fetched it.
 */
export const SignedDocumentMessages = {
  notASignature: 'Este item não é uma assinatura.',
  notGenerated: 'O documento assinado ainda não foi gerado.',
  recipientRequired: 'Informe recipientId: numa assinatura individual cada parte tem a sua cópia assinada.',
} as const;

export interface SignedDocumentPayloads {
  /** A file of the item was fetched by an explicit action (trail only): which file, by its hash. */
  ItemFileDownloaded: { file: 'SIGNED_DOCUMENT'; sha256: string };
}

export type SignedDocumentCommand = { type: 'RecordSignedDocumentDownload'; itemId: string; recipientId: string | null };

/**
 * The copy asked for: JOINT items have one (recipientId ignored), INDIVIDUAL items one per party,
 * named by `recipientId`. Refuses (404) while it has not been generated.
 */
export function signedCopyOf(item: ItemState, recipientId: string | null): SignedCopy {
  const mode = item.config?.signature?.mode;
  if (item.kind !== 'SIGNATURE' || !mode) throw new DomainError('not_found', SignedDocumentMessages.notASignature);
  if (mode === 'INDIVIDUAL' && !recipientId) throw new DomainError('invalid', SignedDocumentMessages.recipientRequired);
  const wanted = mode === 'JOINT' ? null : recipientId;
  const copy = item.details.signature?.signedCopies.find((c) => (c.recipientId ?? null) === wanted);
  if (!copy) throw new DomainError('not_found', SignedDocumentMessages.notGenerated);
  return copy;
}

export const signedDocumentKind: CollectionKind = {
  decide(command, state) {
    if (command.type !== 'RecordSignedDocumentDownload') return null;
    // A closed collection's copy stays downloadable: completion is when it is wanted most.
    const collectionId = existing(state, command.organizationId);
    const copy = signedCopyOf(itemOf(state, command.itemId), command.recipientId);
    return [entry('ItemFileDownloaded', command, collectionId, { itemId: command.itemId, recipientId: copy.recipientId }, { file: 'SIGNED_DOCUMENT', sha256: copy.sha256 })];
  },
  evolve: () => null,
  validateItem: () => undefined,
};

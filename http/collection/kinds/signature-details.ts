import Type from 'typebox';
import { signatureProgress } from '../../../domain/collection/kinds/signature-progress.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SignatureDetailsSchema = Type.Object({
  progress: Type.String({ description: 'for example "2 de 3 assinaturas coletadas; falta: Maria (sem contato: João)"' }),
  parties: Type.Array(Type.Object({
    recipientId: Type.String(),
    order: Type.Integer({ description: '1-based; enforced when the item is ordered' }),
    contactVerified: Type.Boolean({ description: 'a one-time code proved the party\'s e-mail or phone' }),
    signedAt: Nullable(Type.String({ format: 'date-time' })),
    declined: Type.Boolean(),
    declineReason: Nullable(Type.String()),
  })),
  emailsOffered: Type.Integer({ description: 'how many parties can verify by e-mail (never which addresses)' }),
  pdfCopyAvailable: Type.Boolean({ description: 'every party signed: the signed PDF copy can be produced' }),
  signedDocumentAvailable: Type.Boolean({ description: 'a signed copy is downloadable from GET /v1/collections/{id}/items/{itemId}/signed-document' }),
  documentSha256: Nullable(Type.String({ description: 'SHA-256 of the document every party signs' })),
  completedAt: Nullable(Type.String({ format: 'date-time', description: 'when the last party signed (SIGNATURE_COMPLETED)' })),
}, { description: 'SIGNATURE items: parties, progress and copies' });

export function presentSignatureDetails(state: CollectionState, item: ItemState): object {
  if (item.kind !== 'SIGNATURE' || !item.config?.signature) return {};
  const progress = signatureProgress(state, item);
  return {
    signature: {
      progress: progress.text,
      parties: progress.parties.map((p) => ({
        recipientId: p.recipientId,
        order: p.order,
        contactVerified: p.verifiedAt !== null,
        signedAt: p.signedAt,
        declined: p.declinedAt !== null,
        declineReason: p.declineReason,
      })),
      emailsOffered: progress.emailsOffered,
      pdfCopyAvailable: progress.pdfCopyAvailable,
      signedDocumentAvailable: progress.signedDocumentAvailable,
      documentSha256: progress.signature.documentSha256,
      completedAt: progress.signature.completedAt,
    },
  };
}

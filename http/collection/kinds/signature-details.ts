import Type from 'typebox';
import { signatureProgress } from '../../../domain/collection/kinds/signature-progress.ts';
import type { SignedCopy } from '../../../domain/collection/kinds/signature.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';
import { ProvenanceSchema } from '../../provenance.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const SignatureDetailsSchema = Type.Object(
  {
    progress: Type.String({ description: 'for example "2 de 3 assinaturas coletadas; falta: Maria (sem contato: João)"' }),
    parties: Type.Array(
      Type.Object({
        recipientId: Type.String(),
        order: Type.Integer({ description: '1-based; enforced when the item is ordered' }),
        contactVerified: Type.Boolean({ description: "a one-time code proved the party's e-mail or phone" }),
        signedAt: Nullable(Type.String({ format: 'date-time' })),
        declined: Type.Boolean(),
        declineReason: Nullable(Type.String()),
      }),
    ),
    emailsOffered: Type.Integer({ description: 'how many parties can verify by e-mail (never which addresses)' }),
    pdfCopyAvailable: Type.Boolean({ description: 'every party signed: the signed PDF copy can be produced' }),
    signedDocumentAvailable: Type.Boolean({ description: 'a signed copy is downloadable from GET /v1/collections/{id}/items/{itemId}/signed-document' }),
    documentSha256: Nullable(Type.String({ description: 'SHA-256 of the document every party signs' })),
    completedAt: Nullable(Type.String({ format: 'date-time', description: 'when the last party signed (SIGNATURE_COMPLETED)' })),
    signedCopies: Type.Array(
      Type.Object({
        recipientId: Nullable(Type.String({ description: 'the party of an INDIVIDUAL copy; null for the JOINT copy' })),
        sha256: Type.String(),
        generatedAt: Type.String({ format: 'date-time' }),
        signature: Nullable(
          Type.Object(
            {
              level: Type.Union([Type.Literal('B-B'), Type.Literal('B-T'), Type.Literal('B-LT')], { description: 'PAdES baseline level (ETSI EN 319 142-1)' }),
              timestampedAt: Nullable(Type.String({ format: 'date-time', description: "the signature timestamp's time (RFC 3161 genTime): the signing time; null without a TSA (B-B)" })),
              timestampAuthority: Nullable(Type.String({ description: 'subject of the TSA certificate' })),
              policy: Nullable(Type.String({ description: 'ICP-Brasil signature policy declared, with its OID' })),
              signerRevocation: Type.Union([Type.Literal('EMBEDDED'), Type.Literal('NO_ENDPOINT'), Type.Literal('INCOMPLETE'), Type.Literal('NOT_COLLECTED')], {
                description:
                  "the signing chain's revocation data: EMBEDDED in the DSS; NO_ENDPOINT: the chain publishes no OCSP/CRL endpoint (the self-signed default); INCOMPLETE: an endpoint did not answer; NOT_COLLECTED: B-B",
              }),
              validationData: Type.Array(
                Type.Object({
                  subject: Type.String(),
                  source: Type.Union([Type.Literal('OCSP'), Type.Literal('CRL'), Type.Literal('TRUST_ANCHOR'), Type.Literal('NO_ENDPOINT'), Type.Literal('UNAVAILABLE')]),
                  detail: Type.Optional(Type.String()),
                }),
                { description: "every certificate of the signer's and the TSA's chains and how its status is in the DSS" },
              ),
            },
            { description: 'null for copies made before signatures were described' },
          ),
        ),
        provenance: ProvenanceSchema,
      }),
      { description: 'the signed PDF copies produced, with what their digital signature is' },
    ),
  },
  { description: 'SIGNATURE items: parties, progress and copies' },
);

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
      signedCopies: progress.signature.signedCopies.map(presentSignedCopy),
    },
  };
}

/** A copy signed before its certificate's origin was recorded: provider and sandbox unknown. */
function presentSignedCopy({ recipientId, sha256, generatedAt, signature }: SignedCopy) {
  const { provenance, ...described } = signature ?? {};
  return { recipientId, sha256, generatedAt, signature: signature ? described : null, provenance: provenance ?? { provider: null, sandbox: null } };
}

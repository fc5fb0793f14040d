import Type from 'typebox';
import { SIGNATURE_FLOWS, SIGNATURE_MODES } from '../../../domain/collection/enums.ts';

/** A SIGNATURE item's set-up. */
export const SignatureConfigSchema = Type.Object(
  {
    mode: Type.Enum(SIGNATURE_MODES, { description: 'INDIVIDUAL: each recipient signs their own copy; JOINT: every party signs one document' }),
    flow: Type.Enum(SIGNATURE_FLOWS, { default: 'SIGNATURE', description: 'SIGNATURE_AND_IDENTITY: each party passes an identity check before signing' }),
    ordered: Type.Boolean({ default: false, description: 'JOINT only: parties sign in the order of the recipients' }),
    registryDocumentId: Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{24}$' }), Type.Null()], {
      default: null,
      description: 'the PDF to sign, a registry document of the organization (required when the collection is created)',
    }),
    documentSha256: Type.Optional(Type.String({ description: 'SHA-256 of the document, set by the service when the collection is created' })),
    externalEnvelope: Type.Optional(
      Type.Object(
        {
          provider: Type.String({ pattern: '^[a-z][a-z0-9-]{1,39}$', description: 'the name of an external provider of SIGNATURE_PROVIDERS' }),
          envelopeId: Type.String({ minLength: 1, maxLength: 200, description: "the provider's envelope for this item" }),
        },
        { description: "An envelope this organization opened at an external signature provider for this item: only that provider's callbacks naming that envelope act on the item" },
      ),
    ),
  },
  { description: 'SIGNATURE items: mode, flow, order and document' },
);

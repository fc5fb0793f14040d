import Type from 'typebox';
import { SIGNATURE_FLOWS, SIGNATURE_MODES } from '../../../domain/collection/enums.ts';

/** A SIGNATURE item's set-up. */
export const SignatureConfigSchema = Type.Object({
  mode: Type.Enum(SIGNATURE_MODES, { description: 'INDIVIDUAL: each recipient signs their own copy; JOINT: every party signs one document' }),
  flow: Type.Enum(SIGNATURE_FLOWS, { default: 'SIGNATURE', description: 'SIGNATURE_AND_IDENTITY: each party passes an identity check before signing' }),
  ordered: Type.Boolean({ default: false, description: 'JOINT only: parties sign in the order of the recipients' }),
  registryDocumentId: Type.Union([Type.String({ pattern: '^[0-9a-fA-F]{24}$' }), Type.Null()], { default: null, description: 'the PDF to sign, a registry document of the organization (required when the collection is created)' }),
  documentSha256: Type.Optional(Type.String({ description: 'SHA-256 of the document, set by the service when the collection is created' })),
}, { description: 'SIGNATURE items: mode, flow, order and document' });

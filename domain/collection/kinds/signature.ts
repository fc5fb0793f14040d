import type { ClientOrigin } from '../commands.ts';
import type { SignatureFlow, SignatureMode } from '../enums.ts';
import type { CollectionKind } from './kind.ts';
import { decideSignature } from './signature-decide.ts';
import { evolveSignature } from './signature-evolve.ts';
import { validateSignatureItem } from './signature-parties.ts';
import type { Provenance } from '../../shared/provenance.ts';

/**
 * How a SIGNATURE item signs. The parties are the item's recipients, in the order of the
 * collection's recipients when `ordered`. `registryDocumentId`: the PDF to sign (uploaded to the
 * registry, or the contract a pipeline generated).
 */
export interface SignatureConfig {
  mode: SignatureMode;
  flow: SignatureFlow;
  ordered: boolean;
  registryDocumentId: string | null;
  /** SHA-256 of that PDF, set by the service when the collection is created (the evidence names it). */
  documentSha256?: string;
  /**
   * The envelope the organization opened for this item at an external provider: the one
   * provider, and the one envelope, whose callbacks may close the collection.
   */
  externalEnvelope?: { provider: string; envelopeId: string };
}

export type ContactChannel = 'EMAIL' | 'PHONE';

/** The electronic-signature evidence of one party (personal data: kept beside the trail envelope). */
export interface SignatureEvidence extends ClientOrigin {
  contactChannel: ContactChannel;
  contactVerifiedAt: string;
  signedAt: string;
  userAgent: string | null;
  /** SHA-256 of the document the party saw and signed. */
  documentSha256: string;
}

export interface SignatureParty {
  recipientId: string;
  /** 1-based position among the item's recipients (enforced only when the item is ordered). */
  order: number;
  /** The contact a one-time code proved, and when. */
  verifiedChannel: ContactChannel | null;
  verifiedAt: string | null;
  signedAt: string | null;
  /** null once erased (personal data) or before signing. */
  evidence: SignatureEvidence | null;
  declinedAt: string | null;
  declineReason: string | null;
}

/** The latest one-time code sent to a party: only its hash is kept. */
export interface SignatureCode {
  recipientId: string;
  channel: ContactChannel;
  codeHash: string;
  sentAt: string;
  expiresAt: string;
}

/** A signed PDF copy the service produced: one for a JOINT item, one per party for INDIVIDUAL. */
/** What a signed copy's digital signature is (docs/signatures.md, The signature). */
export interface SignedCopySignature {
  /** PAdES baseline level produced (ETSI EN 319 142-1). */
  level: 'B-B' | 'B-T' | 'B-LT';
  /** The signature timestamp's time (TSTInfo genTime), null without a TSA. */
  timestampedAt: string | null;
  /** Subject of the TSA certificate that signed the timestamp. */
  timestampAuthority: string | null;
  /** ICP-Brasil signature policy declared (`AD-RB v1.3 (2.16.76.1.7.1.11.1.3)`), null for another certificate. */
  policy: string | null;
  /**
   * The revocation data of the signing certificate's chain: EMBEDDED (every certificate below the
   * root has an OCSP response or CRL in the DSS), NO_ENDPOINT (the chain publishes no OCSP or CRL
   * endpoint, as the self-signed default: nothing to embed, validation rests on trusting the
   * certificate itself), INCOMPLETE (some endpoint did not answer), NOT_COLLECTED (no TSA: B-B, no DSS).
   */
  signerRevocation: 'EMBEDDED' | 'NO_ENDPOINT' | 'INCOMPLETE' | 'NOT_COLLECTED';
  /** Every certificate of the signer's and the TSA's chains and how its status was established (empty for B-B). */
  validationData: Array<{ subject: string; source: 'OCSP' | 'CRL' | 'TRUST_ANCHOR' | 'NO_ENDPOINT' | 'UNAVAILABLE'; detail?: string }>;
  /** The signing certificate's origin (pkcs12 configured, or the self-signed default: sandbox); absent in copies signed before it was recorded. */
  provenance?: Provenance;
}

export interface SignedCopy {
  recipientId: string | null;
  blobId: string;
  sha256: string;
  provider: string;
  generatedAt: string;
  /** Absent for copies recorded before signatures were described. */
  signature?: SignedCopySignature;
}

/**
 * What a SIGNATURE item has received. `parties` holds the parties with a recorded fact (code
 * verified, signed, declined); signaturePartiesOf (signature-parties.ts) merges them with the
 * item's recipients for the full list.
 */
export interface SignatureItemState {
  documentSha256: string | null;
  parties: SignatureParty[];
  codes: SignatureCode[];
  completedAt: string | null;
  signedCopies: SignedCopy[];
}

export interface SignaturePayloads {
  SignatureCollected: { order: number; documentSha256: string; contactChannel: ContactChannel };
  /** `parties`: the recipient ids that signed; `contentHash`: SHA-256 of the signed content (the document every party signed). */
  SignatureCompleted: { provider: string; parties: string[]; contentHash: string; signedDocument: true };
  SignatureDocumentGenerated: { provider: string; sha256: string; blobId: string; signature?: SignedCopySignature };
  SignatureDeclined: { reason: string };
  SignatureCodeSent: { channel: ContactChannel };
  /**
   * The party typed the right code: `verified` is always true now (a wrong code appends nothing;
   * streams written before that may hold `verified` false, which changes nothing), `attemptsLeft`
   * the wrong attempts the party still had.
   */
  SignatureContactVerified: { channel: ContactChannel; verified: boolean; attemptsLeft: number };
}

export interface SignatureExtras {
  SignatureCollected: { evidence: SignatureEvidence };
  SignatureCodeSent: { codeHash: string; expiresAt: string };
}

export type SignatureCommand =
  /** `codeHash`: the application draws the code, sends it and hashes it; the domain sets its expiry. */
  | { type: 'SendSignatureCode'; itemId: string; recipientId: string; channel: ContactChannel; codeHash: string }
  /**
   * `attempt`: which try at the current code this is (1-based), counted by the application outside
   * the stream (a wrong code appends nothing, yet every try must count toward the lockout).
   */
  | { type: 'VerifySignatureContact'; itemId: string; recipientId: string; codeHash: string; attempt: number }
  | ({ type: 'SignItem'; itemId: string; recipientId: string; userAgent: string | null } & ClientOrigin)
  | { type: 'DeclineSignature'; itemId: string; recipientId: string; reason: string }
  /** `recipientId`: null for a JOINT item's copy, the party for an INDIVIDUAL item's. */
  | { type: 'RecordSignedDocument'; itemId: string; recipientId: string | null; blobId: string; sha256: string; provider: string; signature?: SignedCopySignature }
  /** An external provider's envelope was canceled or expired: the collection closes with provider and reason. */
  | { type: 'RecordProviderOutcome'; itemId: string; outcome: 'CANCELED' | 'EXPIRED'; reason: string; provider: string };

export { INTERNAL_SIGNATURE_PROVIDER, SIGNATURE_CODE_MAX_ATTEMPTS, SIGNATURE_CODE_RESEND_MS, SIGNATURE_CODE_TTL_MS, signaturePartiesOf } from './signature-parties.ts';

export const signatureKind: CollectionKind = {
  decide: decideSignature,
  evolve: evolveSignature,
  validateItem: validateSignatureItem,
  // SIGNATURE_AND_IDENTITY runs the same identity check as an IDENTITY item before each signature.
  requiredModule: (item) => (item.kind === 'SIGNATURE' && item.config?.signature?.flow === 'SIGNATURE_AND_IDENTITY' ? 'kyc' : null),
};

import type { SignatureFlow, SignatureMode } from '../enums.ts';
import type { CollectionKind } from './kind.ts';

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
}

/** The electronic-signature evidence of one party (personal data: kept beside the trail envelope). */
export interface SignatureEvidence {
  contactChannel: 'EMAIL' | 'PHONE';
  contactVerifiedAt: string;
  signedAt: string;
  ip: string | null;
  userAgent: string | null;
  /** SHA-256 of the document the party saw and signed. */
  documentSha256: string;
}

export interface SignatureParty {
  recipientId: string;
  /** 1-based position when the item is ordered. */
  order: number;
  signedAt: string | null;
  evidence: SignatureEvidence | null;
  declinedAt: string | null;
  declineReason: string | null;
}

/** A signed PDF copy the service produced: one for a JOINT item, one per party for INDIVIDUAL. */
export interface SignedCopy {
  recipientId: string | null;
  blobId: string;
  sha256: string;
  generatedAt: string;
}

export interface SignatureItemState {
  documentSha256: string | null;
  parties: SignatureParty[];
  completedAt: string | null;
  signedCopies: SignedCopy[];
}

export interface SignaturePayloads {
  SignatureCollected: { order: number; documentSha256: string; contactChannel: 'EMAIL' | 'PHONE' };
  /** `parties`: the recipient ids that signed; `contentHash`: SHA-256 of the signed content. */
  SignatureCompleted: { provider: string; parties: string[]; contentHash: string; signedDocument: true };
  SignatureDocumentGenerated: { provider: string; sha256: string; blobId: string };
  SignatureDeclined: { reason: string };
  SignatureCodeSent: { channel: 'EMAIL' | 'PHONE' };
  SignatureContactVerified: { channel: 'EMAIL' | 'PHONE' };
}

export interface SignatureExtras {
  SignatureCollected: { evidence: SignatureEvidence };
}

export type SignatureCommand =
  | { type: 'RecordSignedDocument'; itemId: string; recipientId: string | null; blobId: string; sha256: string; provider: string }
  /** An external provider's envelope was canceled or expired: the collection closes with provider and reason. */
  | { type: 'RecordProviderOutcome'; itemId: string; outcome: 'CANCELED' | 'EXPIRED'; reason: string; provider: string };

export const signatureKind: CollectionKind = {
  decide: () => null,
  evolve: () => null,
  validateItem: () => undefined,
};

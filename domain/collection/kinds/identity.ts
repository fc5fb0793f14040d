import type { CollectionKind } from './kind.ts';

export type IdentityVerdict = 'APROVADO' | 'REPROVADO' | 'INCONCLUSIVO';

/**
 * The result of one identity check as the provider port returns it, without its raw payload.
 * IDENTITY items hold them, and so do SIGNATURE items with flow SIGNATURE_AND_IDENTITY (the
 * check a party passes before signing).
 */
export interface IdentityCheck {
  checkId: string;
  recipientId: string | null;
  provider: string;
  verdict: IdentityVerdict;
  /** 0 to 1: face of the document against the selfie. */
  similarity: number | null;
  /** 0 to 1: the selfie is of a live person. */
  liveness: number | null;
  /** Anti-fraud signals raised (codes); empty when none. */
  signals: string[];
  /** Stored image blob ids: only their count is ever shown. */
  imageCount: number;
  completedAt: string;
}

export interface IdentityItemState {
  checks: IdentityCheck[];
}

export interface IdentityPayloads {
  IdentityCheckStarted: { checkId: string; imageCount: number };
  IdentityCompleted: Omit<IdentityCheck, 'recipientId' | 'completedAt'>;
  /** An operator looked at a check's images: recorded in the trail, never a webhook. */
  IdentityImagesViewed: { checkId: string };
}

export interface IdentityExtras {
  IdentityCheckStarted: { imageBlobIds: string[] };
}

export type IdentityCommand =
  | { type: 'StartIdentityCheck'; itemId: string; recipientId: string | null; checkId: string; imageBlobIds: string[] }
  | { type: 'RecordIdentityResult'; itemId: string; recipientId: string | null; check: Omit<IdentityCheck, 'recipientId' | 'completedAt'> }
  | { type: 'RecordIdentityImagesViewed'; itemId: string; checkId: string };

export const identityKind: CollectionKind = {
  decide: () => null,
  evolve: () => null,
  validateItem: () => undefined,
};

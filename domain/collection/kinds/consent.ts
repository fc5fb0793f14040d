import type { CollectionKind } from './kind.ts';

/** A CONSENT item's term: `type` names the input key kyc.consentimento_<type>; `hash` is the SHA-256 of `text`. */
export interface ConsentConfig {
  type: string;
  version: number;
  text: string;
  hash: string;
}

export interface ConsentItemState {
  recipientId: string | null;
  acceptedAt: string;
  termHash: string;
}

export interface ConsentPayloads {
  ConsentAccepted: { type: string; version: number; termHash: string };
}

export interface ConsentExtras {
  ConsentAccepted: { ip: string | null; userAgent: string | null };
}

/** Who accepted comes from the envelope; address and user agent are personal data kept beside it. */
export type ConsentCommand = { type: 'AcceptConsent'; itemId: string; recipientId: string | null; termHash: string; ip: string | null; userAgent: string | null };

export const consentKind: CollectionKind = {
  decide: () => null,
  evolve: () => null,
  validateItem: () => undefined,
};

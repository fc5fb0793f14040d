import type { IdentityVerdict } from '../../../domain/collection/kinds/identity.ts';

export interface IdentityImages {
  /** A photo of the person's identity document (JPEG or PNG). */
  document: Buffer;
  /** A photo of the person's face taken now (JPEG or PNG). */
  selfie: Buffer;
}

export interface IdentityVerification {
  verdict: IdentityVerdict;
  /** 0 to 1, null when the provider does not measure it. */
  similarity: number | null;
  /** 0 to 1, null when the provider does not measure it. */
  liveness: number | null;
  /** Anti-fraud signal codes (IDENTITY_SIGNAL_TEXTS names the known ones). */
  signals: string[];
  /** The provider's answer as received: logged at debug level by the caller, never stored in events nor returned. */
  raw: unknown;
}

/**
 * Compares an identity document's photo with a selfie. `verify` answers a verdict, or throws
 * IdentityProviderUnavailable when the provider gave no result (timeout, 5xx, refused
 * credentials): the check then stays without a result and the person may try again.
 */
export interface IdentityProvider {
  /** Recorded with each result (IdentityCompleted's `provider`). */
  readonly name: string;
  /** Its verdicts come from sandbox rules, not a real check: marked on each result (docs/identity-checks.md). */
  readonly sandbox: boolean;
  verify(images: IdentityImages): Promise<IdentityVerification>;
}

export class IdentityProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityProviderUnavailable';
  }
}

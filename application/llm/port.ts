import type { Static, TSchema } from 'typebox';
import type { ModelCallRecord } from '../../domain/shared/model-call.ts';

/**
 * The language-model port (docs/committee.md): one structured call, its reply validated against a
 * typebox schema, and a record of what the call cost. Adapters: offline (deterministic rules, the
 * default), openai-compatible and anthropic (application/llm/models.ts picks one).
 */

/** What one request cost, recorded with the opinion or deliberation it produced. */
export type LanguageModelCall = ModelCallRecord;

export interface StructuredRequest<S extends TSchema> {
  /** Who asks, e.g. 'parecer', 'committee.cadastral', 'committee.chair', 'financial'. */
  agent: string;
  /** From the versioned prompt files (loadPrompt), with the organization's instructions appended. */
  prompt: { version: string; text: string };
  /** The JSON the model reads; web search results inside it are untrusted text (web-search.ts). */
  input: unknown;
  /**
   * Files the model reads along with the input (a scanned document, a photo): images and PDFs,
   * sent as the provider's file parts. Only a vision-capable model takes them; the offline adapter
   * ignores them.
   */
  files?: ReadonlyArray<{ mediaType: string; data: Uint8Array }>;
  /** The reply's shape: every reply is validated against it. */
  schema: S;
  /** The deterministic rules the offline adapter answers with. */
  // `any`: each caller's rules take their own input type, which `input: unknown` cannot name.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  offline: (input: any) => Static<S>;
}

export interface LanguageModel {
  generate<S extends TSchema>(request: StructuredRequest<S>): Promise<{ output: Static<S>; call: LanguageModelCall }>;
}

/**
 * A request that gave no valid reply. `retryable` tells the caller whether asking again later may
 * help (the server was down or busy through every attempt) or not (replies kept failing the
 * schema, the request was refused).
 */
export class LanguageModelError extends Error {
  readonly retryable: boolean;
  /** What the failed attempts cost, so a recorded ERROR still accounts for its tokens. */
  readonly call: LanguageModelCall | null;

  constructor(message: string, retryable: boolean, call: LanguageModelCall | null = null) {
    super(message);
    this.name = 'LanguageModelError';
    this.retryable = retryable;
    this.call = call;
  }
}

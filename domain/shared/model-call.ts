/**
 * What one language-model request cost, as the events that used its reply record it (opinions,
 * deliberations): the language-model port returns it (application/llm/port.ts).
 */
export interface ModelCallRecord {
  agent: string;
  model: string;
  promptVersion: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  durationMs: number;
  /** Calls made, counting the first (invalid replies and passing failures are retried). */
  attempts: number;
}

/** The model name the offline adapter (deterministic rules, no model) records on every call: a sandbox producer. */
export const OFFLINE_MODEL = 'offline';

import { OFFLINE_MODEL } from './model-call.ts';

/**
 * Which provider produced an artifact (a section, a decision, an opinion, a deliberation, an
 * identity check, a document opinion, a signed document) and whether it is a sandbox result:
 * made up by a sandbox provider or the offline model, or computed from such results. Recorded in
 * the event when the artifact is produced, so a rebuild shows what was true then.
 */
export interface Provenance {
  provider: string;
  sandbox: boolean;
}

/**
 * What an artifact read back says: null fields are unknown (an event recorded before provenance
 * was, where nothing else says it honestly).
 */
export interface ReadProvenance {
  provider: string | null;
  sandbox: boolean | null;
}

/** What every page, sheet and screen showing a sandbox result says, so it never passes for a real one. */
export const SANDBOX_MARK = 'AMBIENTE DE TESTES: dados fictícios';

/**
 * What a language model produced (an opinion, a deliberation), from the model its event recorded:
 * the offline rules are a sandbox producer, and a reply about sandbox data is a sandbox result.
 * `onSandboxData` null: unknown whether the data it read was real.
 */
export function modelProvenance(model: string | null, onSandboxData: boolean | null): ReadProvenance {
  if (model === OFFLINE_MODEL || onSandboxData === true) return { provider: model, sandbox: true };
  return { provider: model, sandbox: model === null || onSandboxData === null ? null : false };
}

/** The sandbox sources' integration type: what an old section without provenance says of itself. */
export const SANDBOX_INTEGRATION = 'SANDBOX';

/** A section recorded before provenance: its integrations name the sandbox, else its provider is known but not whether it was real. */
export function provenanceOfIntegrations(integrations: readonly string[]): ReadProvenance {
  if (integrations.includes(SANDBOX_INTEGRATION)) return { provider: SANDBOX_INTEGRATION, sandbox: true };
  return { provider: integrations[0] ?? null, sandbox: null };
}

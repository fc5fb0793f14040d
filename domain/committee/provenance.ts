import { OFFLINE_MODEL } from '../shared/model-call.ts';
import { modelProvenance, type ReadProvenance } from '../shared/provenance.ts';

/**
 * A deliberation is a sandbox result when one of its models was the offline one or the report it
 * read holds sandbox data; the models come from its events (DeliberationFinished's modelVersions,
 * each opinion's usage). What the API and the committee.finished webhook both say.
 */
export function deliberationProvenance(models: Record<string, string>, reportSandbox: boolean | null): ReadProvenance {
  const names = Object.values(models)
    .flatMap((m) => m.split(', '))
    .filter(Boolean);
  const provider = models.chair ?? models.specialists ?? null;
  return names.includes(OFFLINE_MODEL) ? { provider, sandbox: true } : modelProvenance(provider, reportSandbox);
}

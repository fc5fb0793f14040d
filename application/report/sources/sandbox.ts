import { SANDBOX_INTEGRATION } from '../../../domain/shared/provenance.ts';
import type { SourceSectionType } from '../../../domain/report/sections.ts';
import type { TaxDocument } from '../../../domain/shared/document.ts';
import { SourceError, type SourceCatalog, type SourceProvider, type SourceQuery } from './port.ts';
import { sandboxDetails } from './sandbox-data.ts';
import { sandboxBehaviourOf } from './sandbox-documents.ts';

/** The source the error-path test documents break (present in both demo policies). */
const FLAKY_SECTION: SourceSectionType = 'PROTESTS';
const REGISTRY_SECTIONS: readonly SourceSectionType[] = ['BASIC_INFORMATION', 'LOCATION'];

/** Never answers; gives up only when the caller aborts (the per-source timeout). */
function hang(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) return reject(new SourceError('INTEGRATION_TIMEOUT'));
    signal.addEventListener('abort', () => reject(new SourceError('INTEGRATION_TIMEOUT')), { once: true });
  });
}

/**
 * The offline source of every section: deterministic by document, instant, no network. Test
 * documents (sandbox-documents.ts) take each failure path; every other document gets clean data.
 */
export class SandboxSource implements SourceProvider {
  readonly integrationId: string;
  readonly integrationType = SANDBOX_INTEGRATION;
  readonly sandbox = true;

  constructor(readonly sectionType: SourceSectionType) {
    this.integrationId = `sandbox-${sectionType.toLowerCase().replace(/_/g, '-')}`;
  }

  async query(query: SourceQuery): Promise<Record<string, unknown>> {
    const behaviour = sandboxBehaviourOf(query.document.digits);
    if (behaviour === 'INVALID_DOCUMENT') throw new SourceError('INTEGRATION_INVALID_DOCUMENT');
    if (behaviour === 'NO_DATA' && REGISTRY_SECTIONS.includes(this.sectionType)) throw new SourceError('INTEGRATION_NO_DATA');
    if (this.sectionType === FLAKY_SECTION) {
      if (behaviour === 'TIMEOUT') return hang(query.signal);
      if (behaviour === 'UNAVAILABLE') throw new SourceError('INTEGRATION_UNAVAILABLE');
    }
    // A made-up "no sanctions" would read as a screening that never happened.
    if (this.sectionType === 'SANCTIONS') throw new SourceError('INTEGRATION_UNAVAILABLE');
    return sandboxDetails(this.sectionType, { document: query.document, behaviour, now: query.now });
  }
}

export class SandboxCatalog implements SourceCatalog {
  private readonly providers = new Map<SourceSectionType, SandboxSource>();

  providerFor(sectionType: SourceSectionType, _document: TaxDocument): SourceProvider {
    let provider = this.providers.get(sectionType);
    if (!provider) {
      provider = new SandboxSource(sectionType);
      this.providers.set(sectionType, provider);
    }
    return provider;
  }
}

import type { SourceSectionType } from '../../../domain/report/sections.ts';
import type { TaxDocument } from '../../../domain/shared/document.ts';
import { SANCTION_LISTS, type ScreeningList } from '../../../domain/screening/index.ts';
import { citedVersion, type Screening } from '../../screening/screening.ts';

/** Where the loaded lists come from (Screening; a test may give fixed ones). */
type Lists = Pick<Screening, 'snapshot' | 'close'>;
import { SourceError, type SourceCatalog, type SourceProvider, type SourceQuery } from './port.ts';

/** What a section says when no list of its kind is loaded: screening was not performed, so no "clean". */
const NOT_SCREENED = 'Triagem não realizada: nenhuma lista foi carregada (configure as fontes SCREENING_*_SOURCE).';

async function screen(screening: Lists, document: TaxDocument, name: string | null, lists: readonly ScreeningList[]) {
  const { index, versions } = await screening.snapshot();
  const used = versions.filter((version) => lists.includes(version.list));
  const loaded = new Set(used.map((version) => version.list));
  return {
    matches: used.length > 0 ? index.screen({ document, name }, [...loaded]) : [],
    lists: used.map(citedVersion),
    listsNotLoaded: lists.filter((list) => !loaded.has(list)),
    nameThreshold: index.threshold,
  };
}

/**
 * SANCTIONS from the loaded OFAC, UN, CEIS and CNEP versions: by CPF/CNPJ where the list has
 * them, by the registry's name otherwise (BASIC_INFORMATION's source, asked for the name; when it
 * has none, only documents are compared, and the section says so). The contract's fields
 * (hasSanctions, count, records) stay; the rest is the evidence.
 */
class SanctionsScreeningSource implements SourceProvider {
  readonly sectionType = 'SANCTIONS' as const;
  readonly integrationId = 'screening-sanctions';
  readonly integrationType = 'SCREENING';
  /** The lists are the published ones in every mode: a match is never made up, even in sandbox. */
  readonly sandbox = false;

  constructor(
    private readonly registry: SourceProvider,
    private readonly screening: Lists,
  ) {}

  async query(query: SourceQuery): Promise<Record<string, unknown>> {
    const name = await this.registryName(query);
    const result = await screen(this.screening, query.document, name, SANCTION_LISTS);
    if (result.lists.length === 0) {
      return { screened: false, hasSanctions: null, count: null, records: [], reason: NOT_SCREENED, lists: [], listsNotLoaded: result.listsNotLoaded };
    }
    return {
      screened: true,
      hasSanctions: result.matches.length > 0,
      count: result.matches.length,
      records: result.matches,
      screenedBy: name ? 'DOCUMENT_AND_NAME' : 'DOCUMENT',
      screenedName: name,
      nameThreshold: result.nameThreshold,
      lists: result.lists,
      listsNotLoaded: result.listsNotLoaded,
    };
  }

  /** The subject's name from the registry; null when it has none. A number the registry refuses is refused here too. */
  private async registryName(query: SourceQuery): Promise<string | null> {
    try {
      const details = await this.registry.query(query);
      return typeof details.name === 'string' && details.name.trim() ? details.name : null;
    } catch (error) {
      if (error instanceof SourceError && error.code === 'INTEGRATION_INVALID_DOCUMENT') throw error;
      return null;
    }
  }
}

/** A person's BASIC_INFORMATION with the PEP flag: the PEP file's masked CPF digits and the name must both match. */
class PepFlaggedSource implements SourceProvider {
  readonly sectionType = 'BASIC_INFORMATION' as const;
  /** The section is the registry source's, PEP flag added: made up exactly when that source makes it up. */
  get sandbox(): boolean {
    return this.registry.sandbox;
  }

  constructor(
    private readonly registry: SourceProvider,
    private readonly screening: Lists,
  ) {}

  get integrationId() {
    return this.registry.integrationId;
  }

  get integrationType() {
    return this.registry.integrationType;
  }

  async query(query: SourceQuery): Promise<Record<string, unknown>> {
    const details = await this.registry.query(query);
    const name = typeof details.name === 'string' ? details.name : null;
    const result = await screen(this.screening, query.document, name, ['PEP']);
    const [version] = result.lists;
    if (!version) return { ...details, pep: null, pepScreening: { screened: false, reason: NOT_SCREENED, matches: [] } };
    return { ...details, pep: result.matches.length > 0, pepScreening: { screened: true, ...version, nameThreshold: result.nameThreshold, matches: result.matches } };
  }
}

/**
 * Screening over any catalog: its SANCTIONS provider is replaced by the lists (in every mode,
 * sandbox included: nothing is generated), and a CPF's BASIC_INFORMATION gets the PEP flag.
 */
export class ScreeningCatalog implements SourceCatalog {
  constructor(
    private readonly base: SourceCatalog,
    private readonly screening: Lists,
  ) {}

  async prepare(): Promise<void> {
    await this.screening.snapshot();
  }

  close(): Promise<void> {
    return this.screening.close();
  }

  providerFor(sectionType: SourceSectionType, document: TaxDocument): SourceProvider {
    const registry = this.base.providerFor('BASIC_INFORMATION', document);
    if (sectionType === 'SANCTIONS') return new SanctionsScreeningSource(registry, this.screening);
    if (sectionType === 'BASIC_INFORMATION' && document.type === 'cpf') return new PepFlaggedSource(registry, this.screening);
    return this.base.providerFor(sectionType, document);
  }
}

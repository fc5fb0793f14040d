import type { SourceSectionType } from '../../../domain/report/sections.ts';
import type { TaxDocument } from '../../../domain/shared/document.ts';
import { yearsBetween } from './dates.ts';
import { SourceError, type SourceCatalog, type SourceProvider, type SourceQuery } from './port.ts';

/** The fields we read from BrasilAPI's CNPJ lookup (a mirror of the tax authority's open data). */
export interface BrasilApiCompany {
  cnpj: string;
  razao_social: string;
  nome_fantasia?: string | null;
  situacao_cadastral?: number | null;
  descricao_situacao_cadastral?: string | null;
  data_situacao_cadastral?: string | null;
  data_inicio_atividade?: string | null;
  natureza_juridica?: string | null;
  porte?: string | null;
  capital_social?: number | null;
  opcao_pelo_simples?: boolean | null;
  cnae_fiscal?: number | null;
  cnae_fiscal_descricao?: string | null;
  descricao_tipo_de_logradouro?: string | null;
  descricao_tipo_logradouro?: string | null;
  logradouro?: string | null;
  numero?: string | null;
  complemento?: string | null;
  bairro?: string | null;
  municipio?: string | null;
  uf?: string | null;
  cep?: string | null;
  qsa?: Array<{ nome_socio?: string; qualificacao_socio?: string }> | null;
}

const INTEGRATION_ID = 'brasilapi-cnpj';
const INTEGRATION_TYPE = 'BRASILAPI';

/**
 * GET {BRASILAPI_URL}/api/cnpj/v1/{cnpj}. Both sections it feeds ask at the same moment, so one
 * request in flight per CNPJ serves both.
 */
export class BrasilApiClient {
  private readonly inFlight = new Map<string, Promise<BrasilApiCompany>>();

  constructor(private readonly baseUrl: string) {}

  company(cnpj: string, signal: AbortSignal): Promise<BrasilApiCompany> {
    let pending = this.inFlight.get(cnpj);
    if (!pending) {
      pending = this.fetchCompany(cnpj, signal).finally(() => this.inFlight.delete(cnpj));
      this.inFlight.set(cnpj, pending);
    }
    return pending;
  }

  private async fetchCompany(cnpj: string, signal: AbortSignal): Promise<BrasilApiCompany> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/(?<!\/)\/+$/, '')}/api/cnpj/v1/${cnpj}`, {
        signal,
        headers: { accept: 'application/json' },
        redirect: 'error',
      });
    } catch {
      throw new SourceError(signal.aborted ? 'INTEGRATION_TIMEOUT' : 'INTEGRATION_UNAVAILABLE');
    }
    // BrasilAPI answers 404 for a CNPJ the tax authority does not know and 400 for a malformed one.
    if (response.status === 404) throw new SourceError('INTEGRATION_NO_DATA');
    if (response.status === 400) throw new SourceError('INTEGRATION_INVALID_DOCUMENT');
    if (!response.ok) throw new SourceError('INTEGRATION_UNAVAILABLE');
    try {
      const body = (await response.json()) as BrasilApiCompany;
      if (!body || typeof body.razao_social !== 'string') throw new Error('unexpected body');
      return body;
    } catch {
      throw new SourceError(signal.aborted ? 'INTEGRATION_TIMEOUT' : 'INTEGRATION_UNAVAILABLE');
    }
  }
}

const text = (value: string | null | undefined) => (value && value.trim() ? value.trim() : null);

export function basicInformationOf(company: BrasilApiCompany, now: Date): Record<string, unknown> {
  const foundedAt = text(company.data_inicio_atividade);
  return {
    name: company.razao_social,
    tradeName: text(company.nome_fantasia),
    foundedAt,
    companyAgeYears: foundedAt ? yearsBetween(foundedAt, now) : null,
    registrationStatus: text(company.descricao_situacao_cadastral)?.toUpperCase() ?? null,
    registrationStatusDate: text(company.data_situacao_cadastral),
    legalNature: text(company.natureza_juridica),
    size: text(company.porte),
    shareCapitalCents: typeof company.capital_social === 'number' ? Math.round(company.capital_social * 100) : null,
    simplesNacional: company.opcao_pelo_simples ?? null,
    mainActivity: company.cnae_fiscal ? { code: String(company.cnae_fiscal), description: text(company.cnae_fiscal_descricao) } : null,
    partners: (company.qsa ?? []).map((p) => ({ name: p.nome_socio ?? null, role: p.qualificacao_socio ?? null })),
  };
}

export function locationOf(company: BrasilApiCompany): Record<string, unknown> {
  const streetType = text(company.descricao_tipo_de_logradouro ?? company.descricao_tipo_logradouro);
  const street = text(company.logradouro);
  return {
    street: [streetType, street].filter(Boolean).join(' ') || null,
    number: text(company.numero),
    complement: text(company.complemento),
    district: text(company.bairro),
    city: text(company.municipio),
    state: text(company.uf),
    zipCode: company.cep ? company.cep.replace(/\D/g, '') : null,
    country: 'BR',
  };
}

class BrasilApiSection implements SourceProvider {
  readonly integrationId = INTEGRATION_ID;
  readonly integrationType = INTEGRATION_TYPE;
  readonly sandbox = false;

  constructor(
    readonly sectionType: SourceSectionType,
    private readonly client: BrasilApiClient,
    private readonly normalize: (company: BrasilApiCompany, now: Date) => Record<string, unknown>,
  ) {}

  async query(query: SourceQuery): Promise<Record<string, unknown>> {
    return this.normalize(await this.client.company(query.document.digits, query.signal), query.now);
  }
}

/**
 * SOURCES=brasilapi: company registry data (BASIC_INFORMATION, LOCATION) of CNPJs from BrasilAPI;
 * everything else, and every CPF, from `fallback` (BrasilAPI has no person lookup).
 */
export class BrasilApiCatalog implements SourceCatalog {
  private readonly sections: Map<SourceSectionType, SourceProvider>;

  constructor(
    baseUrl: string,
    private readonly fallback: SourceCatalog,
  ) {
    const client = new BrasilApiClient(baseUrl);
    this.sections = new Map<SourceSectionType, SourceProvider>([
      ['BASIC_INFORMATION', new BrasilApiSection('BASIC_INFORMATION', client, basicInformationOf)],
      ['LOCATION', new BrasilApiSection('LOCATION', client, locationOf)],
    ]);
  }

  providerFor(sectionType: SourceSectionType, document: TaxDocument): SourceProvider {
    const own = document.type === 'cnpj' ? this.sections.get(sectionType) : undefined;
    return own ?? this.fallback.providerFor(sectionType, document);
  }
}

import type { Provenance } from '../shared/provenance.ts';
import type { DocumentType } from '../shared/document.ts';

/**
 * Section types of a report (spec, Section). `id` and `title` are ours: the spec shows the
 * shape {id, title, value} and the values only. Ids are stable numbers: never renumber one.
 */
export const SECTION_TYPES = {
  SUMMARY: { id: 1, title: 'Resumo' },
  SANCTIONS: { id: 2, title: 'Sanções e restrições' },
  PROTESTS: { id: 3, title: 'Protestos' },
  BALANCE_SHEET: { id: 4, title: 'Balanço patrimonial' },
  BASIC_INFORMATION: { id: 5, title: 'Dados cadastrais' },
  LOCATION: { id: 6, title: 'Localização' },
  CERTIFICATES: { id: 7, title: 'Certidões' },
  SCR: { id: 8, title: 'SCR (Banco Central)' },
  PEFIN: { id: 9, title: 'Pendências financeiras (Pefin)' },
  PROCESSES: { id: 10, title: 'Processos judiciais' },
  CATEGORIES: { id: 11, title: 'Atividades econômicas' },
  CRIMINAL_RECORD: { id: 12, title: 'Antecedentes criminais' },
  MEDIA_EXPOSURE: { id: 13, title: 'Exposição na mídia' },
  CREDIT_POLICY: { id: 14, title: 'Política de crédito' },
} as const;

export type SectionType = keyof typeof SECTION_TYPES;
export const ALL_SECTION_TYPES = Object.keys(SECTION_TYPES) as SectionType[];

/** Sections the service writes itself from the others, never queried from a source. */
export const DERIVED_SECTION_TYPES = ['SUMMARY', 'CREDIT_POLICY'] as const satisfies readonly SectionType[];
export type DerivedSectionType = (typeof DERIVED_SECTION_TYPES)[number];
export type SourceSectionType = Exclude<SectionType, DerivedSectionType>;
export const SOURCE_SECTION_TYPES = ALL_SECTION_TYPES.filter((t) => !(DERIVED_SECTION_TYPES as readonly string[]).includes(t)) as SourceSectionType[];

/** Which sources exist for which taxpayer: a person has no balance sheet, a company no criminal record. */
const ONLY_FOR: Partial<Record<SourceSectionType, DocumentType>> = {
  BALANCE_SHEET: 'cnpj',
  CATEGORIES: 'cnpj',
  CRIMINAL_RECORD: 'cpf',
};

export function sectionAppliesTo(type: SourceSectionType, documentType: DocumentType): boolean {
  const only = ONLY_FOR[type];
  return only === undefined || only === documentType;
}

export function isSourceSectionType(value: string): value is SourceSectionType {
  return (SOURCE_SECTION_TYPES as string[]).includes(value);
}

/** Section error codes of the contract. */
export const SECTION_ERROR_CODES = ['INTEGRATION_TIMEOUT', 'INTEGRATION_UNAVAILABLE', 'INTEGRATION_NO_DATA', 'INTEGRATION_INVALID_DOCUMENT'] as const;
export type SectionErrorCode = (typeof SECTION_ERROR_CODES)[number];

/** One failed source call, as the contract shows it in Section.errors. */
export interface SectionError {
  integrationId: string;
  integrationType: string;
  message: string;
  code: SectionErrorCode;
  occurredAt: string;
}

/** What one source answered, normalized: the data of the section or why there is none. */
export interface SectionResult {
  sectionType: SourceSectionType;
  outcome: 'DONE' | 'ERROR';
  /** Normalized data (docs/reports.md lists each shape); null when the source failed. */
  details: Record<string, unknown> | null;
  selectedIntegrations: string[];
  errors: SectionError[];
  /** Sources that contributed data. */
  integrationCount: number;
  /** Which provider answered and whether it made the data up (absent: rebuilt from an event before provenance). */
  provenance?: Provenance;
}

/** The Portuguese text a section error carries for each code (ours). */
export const SECTION_ERROR_MESSAGES: Record<SectionErrorCode, string> = {
  INTEGRATION_TIMEOUT: 'A fonte não respondeu dentro do tempo limite.',
  INTEGRATION_UNAVAILABLE: 'A fonte está indisponível no momento.',
  INTEGRATION_NO_DATA: 'A fonte não tem dados para este documento.',
  INTEGRATION_INVALID_DOCUMENT: 'A fonte considera o documento inválido.',
};

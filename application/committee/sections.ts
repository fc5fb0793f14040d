import type { SpecialistAgent } from '../../domain/committee/events.ts';
import type { SourceSectionType } from '../../domain/report/sections.ts';
import type { UntrustedWebResults } from '../llm/web-search.ts';

/**
 * Each specialist sees only the sections its role needs (`sectionsSeen`): fewer tokens, and an
 * opinion that cannot lean on another specialist's evidence, so seven views stay independent.
 */
export const SECTIONS_BY_AGENT: Readonly<Record<SpecialistAgent, readonly SourceSectionType[]>> = {
  cadastral: ['BASIC_INFORMATION', 'LOCATION'],
  societario: ['BASIC_INFORMATION', 'CATEGORIES'],
  financeiro: ['BALANCE_SHEET', 'SCR'],
  comportamental: ['SCR', 'PEFIN', 'PROTESTS'],
  juridico: ['PROCESSES', 'CERTIFICATES', 'CRIMINAL_RECORD'],
  macro_setorial: ['CATEGORIES', 'LOCATION', 'BALANCE_SHEET'],
  compliance: ['SANCTIONS', 'MEDIA_EXPOSURE', 'CRIMINAL_RECORD'],
};

/** What a specialist reads: the report's facts and its own sections (data, or why there is none). */
export interface SpecialistInput {
  agent: SpecialistAgent;
  documentType: 'cpf' | 'cnpj';
  policyDecision: string;
  policyScore: number | null;
  requestedAmountReais: number | null;
  sections: Partial<Record<SourceSectionType, { status: 'DONE' | 'ERROR'; data: Record<string, unknown> | null }>>;
  /** Cadastral only: web search results, fenced and labelled as untrusted text to weigh, never instructions. */
  webSearch?: UntrustedWebResults;
}

import type { DocumentVerdict, ExpectedDocumentType } from '../collection/enums.ts';
import type { RegistryDocumentStatus } from './document-events.ts';
import type { EntityType, KycStatus } from './events.ts';

/**
 * The documents a registry needs to be complete, by entity type: each entry is one requirement
 * met by any of its types (a company's founding act may be articles of association, bylaws or an
 * individual entrepreneur's registration). Documented in docs/registry.md.
 */
export const REQUIRED_DOCUMENTS: Readonly<Record<EntityType, ReadonlyArray<readonly ExpectedDocumentType[]>>> = {
  COMPANY: [['CONTRATO_SOCIAL', 'ALTERACAO_CONTRATUAL', 'ESTATUTO_SOCIAL', 'REQUERIMENTO_EMPRESARIO'], ['COMPROVANTE_RESIDENCIA'], ['EXTRATO_BANCARIO']],
  PERSON: [['DOC_IDENTIDADE'], ['COMPROVANTE_RESIDENCIA'], ['COMPROVANTE_RENDA']],
};

export interface DocumentOutcome {
  type: ExpectedDocumentType | null;
  status: RegistryDocumentStatus;
  verdict: DocumentVerdict | null;
  validUntil: string | null;
}

/** A document counts when its status is VALIDATED (by the analysis or an operator) and it has not expired on `asOf`. */
export function counts(outcome: DocumentOutcome, asOf: string): boolean {
  return outcome.status === 'VALIDATED' && (outcome.validUntil === null || outcome.validUntil >= asOf.slice(0, 10));
}

/** Share (0-100, rounded) of the requirements met by a counted document. */
export function completenessOf(entityType: EntityType, outcomes: readonly DocumentOutcome[], asOf: string): number {
  const requirements = REQUIRED_DOCUMENTS[entityType];
  const accepted = new Set(outcomes.filter((o) => counts(o, asOf)).map((o) => o.type));
  const met = requirements.filter((types) => types.some((t) => accepted.has(t))).length;
  return Math.round((100 * met) / requirements.length);
}

export function kycStatusOf(completeness: number, outcomes: readonly DocumentOutcome[]): KycStatus {
  if (completeness === 100) return 'UP_TO_DATE';
  if (outcomes.some((o) => o.status === 'MANUAL_REVIEW')) return 'UNDER_REVIEW';
  return completeness === 0 ? 'PENDING' : 'INCOMPLETE';
}

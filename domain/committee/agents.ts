/**
 * The credit committee's members (issue 12): seven specialists and the chair. The ids are public
 * (policy instructions are keyed by them, deliberations name them): never rename one.
 */
export const COMMITTEE_AGENTS = ['cadastral', 'societario', 'financeiro', 'comportamental', 'juridico', 'macro_setorial', 'compliance', 'chair'] as const;
export type CommitteeAgent = (typeof COMMITTEE_AGENTS)[number];

export const AGENT_LABELS: Record<CommitteeAgent, string> = {
  cadastral: 'Cadastral',
  societario: 'Societário',
  financeiro: 'Financeiro',
  comportamental: 'Comportamental',
  juridico: 'Jurídico',
  macro_setorial: 'Macro e Setorial',
  compliance: 'Compliance',
  chair: 'Presidente do comitê',
};

/** The committee's members: seven specialists and the chair (spec, What the service does 2). */
export const COMMITTEE_AGENTS = ['cadastral', 'societario', 'financeiro', 'comportamental', 'juridico', 'macro_setorial', 'compliance', 'chair'] as const;
export type CommitteeAgent = (typeof COMMITTEE_AGENTS)[number];

export const COMMITTEE_AGENT_LABELS: Readonly<Record<CommitteeAgent, string>> = {
  cadastral: 'Cadastral',
  societario: 'Societário',
  financeiro: 'Financeiro',
  comportamental: 'Comportamental',
  juridico: 'Jurídico',
  macro_setorial: 'Macro e Setorial',
  compliance: 'Compliance',
  chair: 'Presidente do comitê',
};

/** The committee's own Portuguese texts (ours: the spec gives only committeeNotFound, in shared messages). */
export const CommitteeMessages = {
  moduleDisabled: 'Sua organização não tem o módulo de Comitê habilitado.',
  alreadyRunning: 'Já existe uma deliberação do comitê em andamento para este relatório.',
  reportNotFinalized: 'O comitê só pode ser convocado depois que o relatório for finalizado.',
} as const;

/** Texts of the policy's committee and opinion fields (ours: the spec shows no policy record). */
export const CommitteePolicyMessages = {
  alcadaLevelRequired: 'Cada alçada precisa de um nível.',
  alcadaLevelRepeated: 'Cada nível de alçada pode aparecer uma vez só.',
  alcadaAmount: 'O valor máximo de uma alçada precisa ser um número inteiro de centavos, zero ou maior.',
  alcadaRiskLevel: 'O risco máximo de uma alçada precisa ser LOW, MEDIUM, HIGH ou CRITICAL.',
  committeeMaxLevelUnknown: 'A alçada máxima do comitê (committeeMaxLevel) precisa ser um dos níveis da tabela de alçadas.',
  autoDecideNeedsLevel: 'Para o comitê decidir sozinho (AUTO_DECIDE), informe a alçada máxima do comitê (committeeMaxLevel).',
  trigger: 'O acionamento do comitê precisa ser OFF, AUTO_SUGGEST ou AUTO_DECIDE.',
  customPromptsModule: 'Instruções adicionais para os agentes do comitê exigem o módulo committee-custom-prompts.',
  instructionsTooLong: 'As instruções adicionais de cada agente do comitê podem ter no máximo 4000 caracteres.',
  instructionsAgent: 'As instruções adicionais só podem ser dadas aos agentes cadastral, societario, financeiro, comportamental, juridico, macro_setorial, compliance e chair.',
  parecerEnabled: 'parecerEnabled precisa ser true ou false.',
} as const;

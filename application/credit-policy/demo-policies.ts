import type { PolicyContent, PolicyRule, ScoreFactor } from '../../domain/credit-policy/policy.ts';

/**
 * The two policies `provision --demo` seeds, written so that every sandbox test document gets
 * its documented outcome (docs/reports.md). They are also a worked example of the policy record.
 */
const v = (path: string) => ({ var: path });
const rule = (id: string, name: string, condition: unknown, onFail: PolicyRule['onFail'], description: string | null = null): PolicyRule => ({
  id,
  name,
  description,
  condition,
  onFail,
});
const factor = (id: string, label: string, points: ScoreFactor['points'], when: unknown = null): ScoreFactor => ({ id, label, points, when });

const restrictions = [
  // A list match denies; no screening (no list loaded: hasSanctions null) is never read as clean,
  // it sends the report to an analyst.
  rule('sem-sancoes', 'Sem sanções', { '!': [v('SANCTIONS.hasSanctions')] }, 'DENY'),
  rule('triagem-realizada', 'Triagem de sanções realizada', { '==': [v('SANCTIONS.screened'), true] }, 'MANUAL_ANALYSIS'),
  rule('protestos-ate-2', 'No máximo 2 protestos', { '<=': [v('PROTESTS.bureau.protestsQuantity'), 2] }, 'DENY'),
  rule('sem-pefin', 'Sem pendências no Pefin', { '==': [v('PEFIN.count'), 0] }, 'MANUAL_ANALYSIS'),
];
const indebtedness = {
  id: 'endividamento',
  name: 'Endividamento (SCR)',
  rules: [
    rule('sem-atraso-scr', 'Sem atrasos no SCR', { '==': [v('SCR.overdueCents'), 0] }, 'MANUAL_ANALYSIS'),
    rule('sem-prejuizo-scr', 'Sem prejuízo no SCR', { '==': [v('SCR.lossCents'), 0] }, 'DENY'),
  ],
};
const commonFactors = [
  factor('protestos', 'Protestos (-80 cada)', { '*': [-80, v('PROTESTS.bureau.protestsQuantity')] }),
  factor('pefin', 'Pendência no Pefin', -150, { '>': [v('PEFIN.count'), 0] }),
  factor('processos-reu', 'Processos como réu (-40 cada)', { '*': [-40, v('PROCESSES.asDefendantCount')] }),
  factor('scr-atraso', 'Atraso no SCR', -200, { '>': [v('SCR.overdueCents'), 0] }),
];
const sourceErrors: PolicyContent['sourceErrors'] = {
  INTEGRATION_TIMEOUT: 'MANUAL_ANALYSIS',
  INTEGRATION_UNAVAILABLE: 'MANUAL_ANALYSIS',
  INTEGRATION_NO_DATA: 'MANUAL_ANALYSIS',
  INTEGRATION_INVALID_DOCUMENT: 'DENIED',
};

export const DEMO_CPF_POLICY: PolicyContent = {
  name: 'Pessoa Física - Padrão (demonstração)',
  description: 'Política de demonstração para CPF: cadastro, restritivos e SCR, com scorecard de 0 a 1000.',
  documentType: 'cpf',
  sections: ['BASIC_INFORMATION', 'LOCATION', 'SANCTIONS', 'PROTESTS', 'PEFIN', 'SCR', 'PROCESSES', 'CRIMINAL_RECORD'],
  score: {
    base: 700,
    min: 0,
    max: 1000,
    approveFrom: 600,
    denyBelow: 300,
    factors: [...commonFactors, factor('idade', 'Idade a partir de 25 anos', 50, { '>=': [v('BASIC_INFORMATION.ageYears'), 25] })],
  },
  groups: [
    {
      id: 'cadastro',
      name: 'Cadastro',
      rules: [
        rule('cpf-regular', 'CPF regular na Receita Federal', { '==': [v('BASIC_INFORMATION.registrationStatus'), 'REGULAR'] }, 'DENY'),
        rule('maior-de-idade', 'Maior de 18 anos', { '>=': [v('BASIC_INFORMATION.ageYears'), 18] }, 'DENY'),
      ],
    },
    {
      id: 'restritivos',
      name: 'Restritivos',
      rules: [...restrictions, rule('sem-antecedentes', 'Sem antecedentes criminais', { '!': v('CRIMINAL_RECORD.hasRecords') }, 'MANUAL_ANALYSIS')],
    },
    indebtedness,
  ],
  sourceErrors,
  parecerEnabled: false,
};

export const DEMO_CNPJ_POLICY: PolicyContent = {
  name: 'Pessoa Jurídica - Padrão (demonstração)',
  description: 'Política de demonstração para CNPJ: cadastro, certidões, restritivos e SCR, com scorecard de 0 a 1000.',
  documentType: 'cnpj',
  sections: ['BASIC_INFORMATION', 'LOCATION', 'CATEGORIES', 'CERTIFICATES', 'SANCTIONS', 'PROTESTS', 'PEFIN', 'PROCESSES', 'SCR', 'MEDIA_EXPOSURE'],
  score: {
    base: 650,
    min: 0,
    max: 1000,
    approveFrom: 600,
    denyBelow: 300,
    factors: [
      ...commonFactors,
      factor('empresa-madura', 'Empresa com 5 anos ou mais', 50, { '>=': [v('BASIC_INFORMATION.companyAgeYears'), 5] }),
      factor('midia-negativa', 'Menções negativas na mídia (-30 cada)', { '*': [-30, v('MEDIA_EXPOSURE.negativeMentions')] }),
    ],
  },
  groups: [
    {
      id: 'cadastro',
      name: 'Cadastro',
      rules: [
        rule('cnpj-ativo', 'CNPJ ativo na Receita Federal', { '==': [v('BASIC_INFORMATION.registrationStatus'), 'ATIVA'] }, 'DENY'),
        rule('empresa-com-1-ano', 'Empresa com ao menos 1 ano', { '>=': [v('BASIC_INFORMATION.companyAgeYears'), 1] }, 'MANUAL_ANALYSIS'),
      ],
    },
    {
      id: 'restritivos',
      name: 'Restritivos',
      rules: [...restrictions, rule('certidoes-negativas', 'Certidões negativas', { '==': [v('CERTIFICATES.allClear'), true] }, 'MANUAL_ANALYSIS')],
    },
    indebtedness,
  ],
  sourceErrors,
  parecerEnabled: false,
};

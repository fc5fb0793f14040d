import { AGENT_LABELS } from '../../domain/committee/agents.ts';
import type { AgentRecommendation, SpecialistAgent } from '../../domain/committee/events.ts';
import type { SourceSectionType } from '../../domain/report/sections.ts';
import type { AgentOpinionOutput, ChairOutput } from './schemas.ts';
import { SECTIONS_BY_AGENT, type SpecialistInput } from './sections.ts';
import { formatBRL } from '../../domain/shared/money.ts';

/**
 * The offline adapter's answers: rules over the sections an agent sees, in plain Portuguese,
 * the same for the same input. They never quote names or documents (docs/committee.md).
 */

type Data = Record<string, unknown>;
type Finding = { severity?: 'WARNING' | 'CRITICAL'; label: string; detail: string };
type Check = (data: Data) => Finding | null;

/** Section data is normalized JSON (docs/reports.md): a field of another type reads as absent and makes no finding. */
const num = (data: unknown, key: string): number | undefined => {
  const value = (data as Data | undefined)?.[key];
  return typeof value === 'number' ? value : undefined;
};
const text = (data: unknown, key: string): string | undefined => {
  const value = (data as Data | undefined)?.[key];
  return typeof value === 'string' ? value : undefined;
};

const warn = (label: string, detail: string): Finding => ({ severity: 'WARNING', label, detail });
const critical = (label: string, detail: string): Finding => ({ severity: 'CRITICAL', label, detail });
const good = (label: string, detail: string): Finding => ({ label, detail });
const above = (value: number | undefined, limit: number) => value !== undefined && value > limit;

const CHECKS: Partial<Record<SourceSectionType, Check[]>> = {
  BASIC_INFORMATION: [
    (d) => {
      const status = text(d, 'registrationStatus');
      return status === 'ATIVA' || status === 'REGULAR'
        ? good('Situação cadastral regular', `Situação na Receita: ${status}.`)
        : critical('Situação cadastral irregular', `Situação na Receita: ${status ?? 'não informada'}.`);
    },
    (d) => (d.deceased === true ? critical('Titular falecido', 'A Receita indica óbito do titular.') : null),
    (d) => (d.pep === true ? warn('Pessoa exposta politicamente', 'O CPF (dígitos visíveis) e o nome constam na lista de PEP: diligência reforçada.') : null),
    (d) => {
      const age = num(d, 'companyAgeYears');
      if (age === undefined) return null;
      if (age < 2) return warn('Empresa recente', `Empresa com ${age} ano(s) de atividade.`);
      return age >= 5 ? good('Empresa consolidada', `${age} anos de atividade.`) : null;
    },
    (d) => (Array.isArray(d.partners) && d.partners.length === 0 ? warn('Quadro societário não informado', 'Nenhum sócio consta no cadastro.') : null),
  ],
  LOCATION: [
    (d) => (text(d, 'state') ? good('Endereço localizado', `Endereço em ${text(d, 'city') ?? ''}/${text(d, 'state')}.`) : warn('Endereço incompleto', 'O endereço não traz a unidade da federação.')),
  ],
  CATEGORIES: [(d) => (text(d, 'sector') ? good('Setor identificado', `Setor ${text(d, 'sector')}: ${text(d.mainActivity, 'description') ?? 'atividade principal informada'}.`) : null)],
  BALANCE_SHEET: [
    (d) => {
      const equity = num(d, 'equityCents');
      return equity !== undefined && equity < 0 ? critical('Patrimônio líquido negativo', `Patrimônio líquido de ${formatBRL(equity)}.`) : null;
    },
    (d) => {
      const income = num(d, 'netIncomeCents');
      if (income === undefined) return null;
      const year = num(d, 'referenceYear') ?? '';
      return income < 0 ? warn('Prejuízo no exercício', `Resultado de ${formatBRL(income)} em ${year}.`) : good('Lucro no exercício', `Lucro líquido de ${formatBRL(income)} em ${year}.`);
    },
    (d) => {
      const assets = num(d, 'totalAssetsCents');
      const liabilities = num(d, 'totalLiabilitiesCents');
      if (!assets || liabilities === undefined || liabilities / assets <= 0.8) return null;
      return warn('Endividamento elevado', `Passivo de ${Math.round((100 * liabilities) / assets)}% do ativo.`);
    },
  ],
  SCR: [
    (d) => (above(num(d, 'lossCents'), 0) ? critical('Prejuízo no SCR', `${formatBRL(num(d, 'lossCents')!)} lançados como prejuízo por instituições financeiras.`) : null),
    (d) =>
      above(num(d, 'overdueCents'), 0)
        ? warn('Atrasos no SCR', `${formatBRL(num(d, 'overdueCents')!)} vencidos no SCR.`)
        : good('SCR em dia', `Dívida de ${formatBRL(num(d, 'totalDebtCents') ?? 0)} sem atrasos.`),
  ],
  PEFIN: [
    (d) =>
      above(num(d, 'count'), 0)
        ? warn('Pendências financeiras', `${num(d, 'count')} pendência(s) somando ${formatBRL(num(d, 'totalAmountCents') ?? 0)}.`)
        : good('Sem pendências financeiras', 'Nenhuma pendência no Pefin.'),
  ],
  PROTESTS: [
    (d) => {
      const quantity = num(d.bureau, 'protestsQuantity');
      return above(quantity, 0) ? warn('Protestos', `${quantity} protesto(s) somando ${formatBRL(num(d.bureau, 'protestsAmountCents') ?? 0)}.`) : good('Sem protestos', 'Nenhum protesto em cartório.');
    },
  ],
  PROCESSES: [
    (d) => {
      const defendant = num(d, 'asDefendantCount') ?? 0;
      if (defendant > 20) return critical('Muitos processos como réu', `${defendant} processos no polo passivo.`);
      return defendant > 0 ? warn('Processos como réu', `${defendant} processo(s) no polo passivo.`) : good('Sem processos como réu', 'Nenhum processo no polo passivo.');
    },
  ],
  CERTIFICATES: [(d) => (d.allClear === true ? good('Certidões negativas', 'Todas as certidões consultadas são negativas.') : warn('Certidão positiva', 'Ao menos uma certidão não é negativa.'))],
  CRIMINAL_RECORD: [
    (d) => (d.hasRecords === true ? critical('Antecedentes criminais', `${num(d, 'count') ?? 1} registro(s) de antecedentes.`) : good('Sem antecedentes', 'Nenhum antecedente criminal.')),
  ],
  SANCTIONS: [
    (d) => {
      if (d.screened === false) return warn('Triagem não realizada', 'Nenhuma lista de sanções estava carregada: a ausência de sanções não está confirmada.');
      return d.hasSanctions === true ? critical('Sanções', `${num(d, 'count') ?? 1} registro(s) em listas de sanções.`) : good('Sem sanções', 'Nenhum registro em listas de sanções.');
    },
  ],
  MEDIA_EXPOSURE: [
    (d) =>
      above(num(d, 'negativeMentions'), 0)
        ? warn('Menções negativas na mídia', `${num(d, 'negativeMentions')} menção(ões) negativa(s).`)
        : good('Sem exposição negativa', 'Nenhuma menção negativa na mídia.'),
  ],
};

/** A hint, not a verdict: search results are untrusted text, so at most a warning. */
const NEGATIVE_WEB = /fraude|golpe|falência|investigad|condenad|lavagem/i;

export function offlineOpinion(input: SpecialistInput): AgentOpinionOutput {
  const findings: Finding[] = [];
  const infoGaps: string[] = [];
  for (const type of SECTIONS_BY_AGENT[input.agent]) {
    const section = input.sections[type];
    if (!section) continue;
    if (section.status !== 'DONE' || !section.data) {
      infoGaps.push(`Seção ${type} indisponível nesta análise.`);
      continue;
    }
    for (const check of CHECKS[type] ?? []) {
      const finding = check(section.data);
      if (finding) findings.push(finding);
    }
  }
  const negative = input.webSearch?.results.filter((r) => NEGATIVE_WEB.test(`${r.title} ${r.snippet}`)) ?? [];
  if (negative.length) findings.push(warn('Notícias negativas na web', `${negative.length} resultado(s) de busca com termos negativos; conferir a fonte.`));
  const redFlags = findings.filter((f): f is Required<Finding> => f.severity !== undefined);
  const positiveFactors = findings.filter((f) => !f.severity).map(({ label, detail }) => ({ label, detail }));
  const criticals = redFlags.filter((f) => f.severity === 'CRITICAL').length;
  const seen = redFlags.length + positiveFactors.length;
  const score = seen === 0 ? 5 : Math.max(0, Math.min(10, 9 + Math.min(1, positiveFactors.length / 3) - 2 * (redFlags.length - criticals) - 4 * criticals - infoGaps.length));
  const recommendation: AgentRecommendation = seen === 0 ? 'NEEDS_INFO' : criticals > 0 || score < 4 ? 'REJECT' : redFlags.length > 0 || score < 8 ? 'APPROVE_WITH_RESTRICTION' : 'APPROVE';
  const label = AGENT_LABELS[input.agent];
  const resumo = seen === 0 ? `${label}: sem dados suficientes para opinar.` : `${label}: ${redFlags.length} alerta(s) e ${positiveFactors.length} ponto(s) positivo(s); nota ${score.toFixed(1)}.`;
  const parecer = [
    `Análise ${label.toLowerCase()} feita sobre ${SECTIONS_BY_AGENT[input.agent].filter((t) => input.sections[t]).join(', ') || 'nenhuma seção disponível'}.`,
    ...redFlags.map((f) => `Alerta (${f.severity === 'CRITICAL' ? 'crítico' : 'atenção'}): ${f.label}. ${f.detail}`),
    ...positiveFactors.map((f) => `Positivo: ${f.label}. ${f.detail}`),
    ...infoGaps,
  ].join('\n');
  return {
    score: Math.round(score * 10) / 10,
    resumo,
    parecer,
    redFlags,
    positiveFactors,
    confidence: Math.round(100 * Math.max(0.3, 0.9 - 0.15 * infoGaps.length - (seen === 0 ? 0.4 : 0))) / 100,
    infoGaps,
    recommendation,
  };
}

/** What the chair reads: the opinions (no section data) and the report's facts. */
export interface ChairInput {
  policyDecision: string;
  policyScore: number | null;
  requestedAmountReais: number | null;
  /** Reais, from the balance sheet when there is one (the remote chair reads it; these rules never size a limit from it). */
  annualRevenueReais: number | null;
  opinions: Array<{ agent: SpecialistAgent; agentLabel: string } & AgentOpinionOutput>;
}

export function offlineSynthesis(input: ChairInput): ChairOutput {
  const opinions = input.opinions;
  const mean = opinions.reduce((sum, o) => sum + o.score, 0) / Math.max(1, opinions.length);
  const rejecting = opinions.filter((o) => o.recommendation === 'REJECT');
  const unsure = opinions.filter((o) => o.recommendation === 'NEEDS_INFO');
  const critical = opinions.some((o) => o.redFlags.some((f) => f.severity === 'CRITICAL'));
  // Rules cannot size a limit nobody asked for: without a requested amount nothing is approved
  // (an approval would need a limit, and an invented one would choose the alçada).
  const requested = input.requestedAmountReais;
  const decision = critical || rejecting.length >= 3 ? 'REJECTED' : unsure.length >= 4 || requested === null ? 'NEEDS_INFO' : 'APPROVED';
  const restricted = opinions.filter((o) => o.recommendation === 'APPROVE_WITH_RESTRICTION');
  const conditions = decision === 'APPROVED' ? restricted.flatMap((o) => o.redFlags.map((f) => `${o.agentLabel}: mitigar "${f.label}" antes da liberação.`)).slice(0, 20) : [];
  const reference = requested ?? 0;
  const limite = decision === 'APPROVED' ? (mean >= 7 ? reference : Math.round(reference * 0.7)) : 0;
  const labels = (list: typeof opinions) => list.map((o) => o.agentLabel).join(', ');
  return {
    decision,
    resumo: `Comitê ${decision === 'APPROVED' ? 'favorável' : decision === 'REJECTED' ? 'desfavorável' : 'sem elementos para decidir'}: nota média ${mean.toFixed(1)} em ${opinions.length} pareceres.`,
    reasoning: [
      `A política de crédito indicou ${input.policyDecision}${input.policyScore === null ? '' : ` (score ${input.policyScore})`}.`,
      critical ? 'Há alerta crítico entre os pareceres, o que impede a aprovação.' : 'Nenhum alerta crítico entre os pareceres.',
      rejecting.length ? `Recomendaram reprovar: ${labels(rejecting)}.` : 'Nenhum especialista recomendou reprovar.',
      restricted.length ? `Aprovação com restrições: ${labels(restricted)}.` : '',
    ]
      .filter(Boolean)
      .join(' '),
    proximaAcao:
      decision === 'APPROVED'
        ? conditions.length
          ? 'Formalizar após cumprir as condições.'
          : 'Formalizar a operação.'
        : decision === 'REJECTED'
          ? 'Comunicar a recusa ao solicitante.'
          : 'Obter as informações faltantes e reconvocar o comitê.',
    conditions,
    monitoringItems: opinions.flatMap((o) => o.redFlags.filter((f) => f.severity === 'WARNING').map((f) => `Acompanhar: ${f.label}.`)).slice(0, 10),
    infoGapsBeforeDecision: [...(requested === null ? ['Valor pedido da proposta: sem ele o comitê não dimensiona um limite.'] : []), ...opinions.flatMap((o) => o.infoGaps)].slice(0, 10),
    limitReview: {
      status: decision !== 'APPROVED' ? 'NAO_APLICAVEL' : limite === reference ? 'ADEQUADO' : 'REDUZIR',
      limite,
      // No rate or term either: rules have no pricing and read no requested term; 0 says "not set" and the analyst sets them.
      taxa: 0,
      prazo: 0,
      justificativa:
        decision === 'APPROVED'
          ? `Limite ${limite === reference ? 'compatível com o pedido' : 'reduzido a 70% pela nota média'}; taxa e prazo a definir pelo analista.`
          : requested === null && decision === 'NEEDS_INFO'
            ? 'Sem limite: a proposta não informa o valor pedido.'
            : 'Sem limite: o comitê não aprovou.',
    },
    confidence: Math.round((100 * opinions.reduce((sum, o) => sum + o.confidence, 0)) / Math.max(1, opinions.length)) / 100,
  };
}

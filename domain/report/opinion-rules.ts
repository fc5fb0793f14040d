import type { RiskLevel } from '../credit-policy/policy.ts';
import type { SectionOpinion } from './opinion-events.ts';
import { SECTION_TYPES, type SectionError, type SourceSectionType } from './sections.ts';
import { formatBRL } from '../shared/money.ts';

/** What the opinion of one section reads (the model's input, and the offline rules'). */
export interface OpinionInput {
  sectionType: SourceSectionType;
  documentType: 'cpf' | 'cnpj';
  outcome: 'DONE' | 'ERROR';
  details: Record<string, unknown> | null;
  errors: Array<Pick<SectionError, 'code' | 'message'>>;
}

/** The prompt's scale (prompts/parecer/v1.md): the level follows from the score. */
export function riskLevelOf(score: number): RiskLevel {
  if (score >= 7.5) return 'LOW';
  if (score >= 5) return 'MEDIUM';
  if (score >= 2.5) return 'HIGH';
  return 'CRITICAL';
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
const at = (details: Record<string, unknown>, path: string) => path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), details);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

interface Finding {
  score: number;
  text: string;
  highlights: string[];
}

type Rule = (d: Record<string, unknown>, input: OpinionInput) => Finding;

/** A count of restrictive records: none is clean, each one costs points, with their total amount. */
function restrictions(what: [string, string], countPath: string, amountPath: string, perRecord: number): Rule {
  return (d) => {
    const count = num(at(d, countPath));
    const amount = num(at(d, amountPath));
    if (count === 0) return { score: 9.5, text: `Nenhum registro de ${what[1]} encontrado.`, highlights: [`Sem ${what[1]}`] };
    const score = Math.max(1, 8 - perRecord * count - (amount > 1_000_000 ? 1.5 : 0));
    return {
      score,
      text: `Foram encontrados ${plural(count, what[0], what[1])}, somando ${formatBRL(amount)}. Pendências desse tipo indicam dificuldade recente de honrar compromissos e pedem comprovação de quitação.`,
      highlights: [`${plural(count, what[0], what[1])}`, `Total de ${formatBRL(amount)}`],
    };
  };
}

const RULES: Record<SourceSectionType, Rule> = {
  SCR(d) {
    const total = num(d.totalDebtCents);
    const overdue = num(d.overdueCents);
    const loss = num(d.lossCents);
    const institutions = num(d.institutionsCount);
    const base = `No SCR (referência ${String(d.referenceMonth ?? 'não informada')}), a dívida total é de ${formatBRL(total)} em ${plural(institutions, 'instituição', 'instituições')}.`;
    if (loss > 0)
      return { score: 1, text: `${base} Há ${formatBRL(loss)} em prejuízo, o que indica crédito já baixado como perda por outra instituição.`, highlights: [`Prejuízo de ${formatBRL(loss)} no SCR`] };
    if (overdue > 0) return { score: 3.5, text: `${base} Há ${formatBRL(overdue)} em atraso, sinal de pressão sobre o fluxo de pagamentos.`, highlights: [`Atraso de ${formatBRL(overdue)} no SCR`] };
    return {
      score: total > 0 ? 8.5 : 7.5,
      text: `${base} Não há atraso nem prejuízo registrados.`,
      highlights: ['Sem atraso ou prejuízo no SCR', total > 0 ? 'Histórico de crédito ativo' : 'Sem histórico de crédito no SCR'],
    };
  },
  PROTESTS: restrictions(['protesto', 'protestos'], 'bureau.protestsQuantity', 'bureau.protestsAmountCents', 1.5),
  PEFIN: restrictions(['pendência financeira', 'pendências financeiras'], 'count', 'totalAmountCents', 2),
  SANCTIONS(d) {
    if (d.screened === false)
      return {
        score: 5,
        text: 'A triagem em listas de sanções não foi realizada: nenhuma lista estava carregada. A ausência de sanções não está confirmada.',
        highlights: ['Triagem de sanções não realizada'],
      };
    const count = num(d.count);
    if (count === 0 && d.hasSanctions !== true) return { score: 10, text: 'Não há sanções registradas nas listas consultadas.', highlights: ['Sem sanções'] };
    return { score: 0.5, text: `Há ${plural(Math.max(count, 1), 'sanção ativa', 'sanções ativas')} nas listas consultadas: impedimento grave à concessão de crédito.`, highlights: ['Sanção ativa'] };
  },
  CRIMINAL_RECORD(d) {
    const count = num(d.count);
    if (count === 0 && d.hasRecords !== true) return { score: 10, text: 'Não constam antecedentes criminais.', highlights: ['Sem antecedentes criminais'] };
    return {
      score: 1.5,
      text: `Constam ${plural(Math.max(count, 1), 'registro criminal', 'registros criminais')}: risco reputacional e de conformidade elevado.`,
      highlights: ['Antecedentes criminais'],
    };
  },
  PROCESSES(d) {
    const defendant = num(d.asDefendantCount);
    const plaintiff = num(d.asPlaintiffCount);
    if (defendant === 0) return { score: 9, text: `Não há processos como réu; ${plural(plaintiff, 'processo', 'processos')} como autor.`, highlights: ['Nenhum processo como réu'] };
    return {
      score: Math.max(2, 7 - defendant),
      text: `Há ${plural(defendant, 'processo', 'processos')} como réu, que podem gerar bloqueios e execuções sobre o patrimônio.`,
      highlights: [`${plural(defendant, 'processo', 'processos')} como réu`],
    };
  },
  BASIC_INFORMATION(d, input) {
    const status = String(d.registrationStatus ?? 'não informada');
    const regular = status === 'ATIVA' || status === 'REGULAR';
    const age = input.documentType === 'cnpj' ? num(d.companyAgeYears) : null;
    const ageText = age === null ? '' : ` A empresa tem ${plural(age, 'ano', 'anos')} de atividade.`;
    if (d.deceased === true) return { score: 0, text: 'O titular do CPF consta como falecido.', highlights: ['Titular falecido'] };
    const score = regular ? (age !== null && age < 2 ? 6.5 : 8.5) : 2;
    const pepText = d.pep === true ? ' Consta na lista de pessoas expostas politicamente (PEP): requer diligência reforçada.' : '';
    return {
      score,
      text: `Situação cadastral ${status}.${ageText}${pepText}`,
      highlights: [
        regular ? 'Cadastro regular' : `Situação cadastral ${status}`,
        ...(age !== null && age < 2 ? ['Empresa com menos de 2 anos'] : []),
        ...(d.pep === true ? ['Pessoa exposta politicamente'] : []),
      ],
    };
  },
  CERTIFICATES(d) {
    if (d.allClear === true) return { score: 9, text: 'Todas as certidões consultadas são negativas.', highlights: ['Certidões negativas'] };
    return { score: 3.5, text: 'Há certidão positiva de débito entre as consultadas: existem débitos fiscais ou trabalhistas em aberto.', highlights: ['Certidão positiva de débito'] };
  },
  LOCATION(d) {
    const city = d.city ? `${String(d.city)}/${String(d.state ?? '')}` : null;
    return city
      ? { score: 8, text: `Endereço localizado em ${city}.`, highlights: ['Endereço confirmado'] }
      : { score: 5, text: 'O endereço não pôde ser confirmado.', highlights: ['Endereço não confirmado'] };
  },
  CATEGORIES(d) {
    const activity = at(d, 'mainActivity.description');
    return {
      score: 7.5,
      text: `Atividade principal: ${activity ? String(activity) : 'não informada'}${d.sector ? ` (setor ${String(d.sector)})` : ''}.`,
      highlights: [activity ? 'Atividade identificada' : 'Atividade não identificada'],
    };
  },
  MEDIA_EXPOSURE(d) {
    const negative = num(d.negativeMentions);
    if (negative === 0) return { score: 9, text: 'Nenhuma menção negativa na mídia.', highlights: ['Sem exposição negativa'] };
    return {
      score: Math.max(2, 7 - 1.5 * negative),
      text: `Foram encontradas ${plural(negative, 'menção negativa', 'menções negativas')} na mídia, a verificar com fontes oficiais.`,
      highlights: [`${plural(negative, 'menção negativa', 'menções negativas')}`],
    };
  },
  BALANCE_SHEET(d) {
    const revenue = num(d.revenueCents);
    const netIncome = num(d.netIncomeCents);
    const liabilities = num(d.totalLiabilitiesCents);
    const equity = num(d.equityCents);
    const margin = revenue > 0 ? netIncome / revenue : 0;
    const leverage = equity > 0 ? liabilities / equity : Infinity;
    const score = Math.min(10, Math.max(1, 6 + (margin > 0.05 ? 2 : margin > 0 ? 1 : -3) + (leverage < 1.5 ? 1.5 : leverage < 3 ? 0 : -2)));
    const leverageText = Number.isFinite(leverage) ? `${leverage.toFixed(2).replace('.', ',')} vezes o patrimônio líquido` : 'patrimônio líquido negativo ou nulo';
    return {
      score,
      text: `No exercício de ${String(d.referenceYear ?? 'referência não informada')}, receita de ${formatBRL(revenue)} e lucro líquido de ${formatBRL(netIncome)} (margem de ${(margin * 100).toFixed(1).replace('.', ',')}%). O passivo equivale a ${leverageText}.`,
      highlights: [`Margem líquida de ${(margin * 100).toFixed(1).replace('.', ',')}%`, `Endividamento: ${leverageText}`],
    };
  },
};

/**
 * The offline adapter's opinion (docs/committee.md): rules over the section's own figures, in
 * the prompt's scale, so the same section and prompt version always read the same.
 */
export function offlineOpinion(input: OpinionInput): SectionOpinion {
  const title = SECTION_TYPES[input.sectionType].title;
  if (input.outcome === 'ERROR' || !input.details) {
    const reasons = input.errors.map((e) => e.message).join(' ') || 'A fonte não trouxe dados.';
    return {
      parecer: `A consulta de ${title} não retornou dados: ${reasons} Sem essa informação, o risco desta seção não pode ser avaliado e deve ser verificado manualmente.`,
      score: 5,
      riskLevel: 'MEDIUM',
      highlights: ['Fonte indisponível: informação a verificar'],
    };
  }
  const finding = RULES[input.sectionType](input.details, input);
  const score = Math.round(Math.min(10, Math.max(0, finding.score)) * 10) / 10;
  return { parecer: finding.text, score, riskLevel: riskLevelOf(score), highlights: finding.highlights.slice(0, 5) };
}

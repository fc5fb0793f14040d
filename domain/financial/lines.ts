/**
 * The standard lines of a balance sheet (BALANCE) and an income statement (INCOME), each with the
 * labels (upper case, no accents, after `canonicalLabel`) that the usual Brazilian layouts print for
 * it. A label matches only as a whole, so "DESPESAS FINANCEIRAS" never reads "RECEITAS FINANCEIRAS"
 * and "ATIVO CIRCULANTE" never reads "ATIVO NAO CIRCULANTE".
 */
import { normalizeText } from '../shared/text.ts';
export const STANDARD_LINES = {
  cash: { statement: 'BALANCE', label: 'Caixa e equivalentes de caixa', labels: ['CAIXA E EQUIVALENTES DE CAIXA', 'CAIXA E EQUIVALENTES', 'DISPONIVEL', 'DISPONIBILIDADES', 'CAIXA E BANCOS'] },
  inventories: { statement: 'BALANCE', label: 'Estoques', labels: ['ESTOQUES', 'ESTOQUE'] },
  currentAssets: { statement: 'BALANCE', label: 'Ativo circulante', labels: ['ATIVO CIRCULANTE'] },
  longTermReceivables: { statement: 'BALANCE', label: 'Realizável a longo prazo', labels: ['REALIZAVEL A LONGO PRAZO', 'ATIVO REALIZAVEL A LONGO PRAZO'] },
  nonCurrentAssets: { statement: 'BALANCE', label: 'Ativo não circulante', labels: ['ATIVO NAO CIRCULANTE'] },
  totalAssets: { statement: 'BALANCE', label: 'Ativo total', labels: ['ATIVO TOTAL', 'ATIVO', 'GERAL DO ATIVO'] },
  currentLiabilities: { statement: 'BALANCE', label: 'Passivo circulante', labels: ['PASSIVO CIRCULANTE'] },
  nonCurrentLiabilities: {
    statement: 'BALANCE',
    label: 'Passivo não circulante',
    labels: ['PASSIVO NAO CIRCULANTE', 'EXIGIVEL A LONGO PRAZO', 'PASSIVO EXIGIVEL A LONGO PRAZO'],
  },
  equity: { statement: 'BALANCE', label: 'Patrimônio líquido', labels: ['PATRIMONIO LIQUIDO'] },
  totalLiabilitiesAndEquity: {
    statement: 'BALANCE',
    label: 'Passivo total (com patrimônio líquido)',
    labels: ['PASSIVO TOTAL', 'PASSIVO', 'PASSIVO E PATRIMONIO LIQUIDO', 'GERAL DO PASSIVO'],
  },
  grossRevenue: {
    statement: 'INCOME',
    label: 'Receita bruta',
    labels: ['RECEITA BRUTA', 'RECEITA OPERACIONAL BRUTA', 'RECEITA BRUTA DE VENDAS', 'RECEITA BRUTA DE VENDAS E SERVICOS', 'FATURAMENTO BRUTO'],
  },
  netRevenue: {
    statement: 'INCOME',
    label: 'Receita líquida',
    labels: ['RECEITA LIQUIDA', 'RECEITA OPERACIONAL LIQUIDA', 'RECEITA LIQUIDA DE VENDAS', 'RECEITA LIQUIDA DE VENDAS E SERVICOS', 'RECEITA LIQUIDA DAS VENDAS'],
  },
  costOfSales: {
    statement: 'INCOME',
    label: 'Custo das vendas',
    labels: [
      'CUSTO DAS MERCADORIAS VENDIDAS',
      'CUSTO DOS PRODUTOS VENDIDOS',
      'CUSTO DOS SERVICOS PRESTADOS',
      'CUSTO DAS VENDAS',
      'CUSTO DOS PRODUTOS E SERVICOS VENDIDOS',
      'CUSTO DAS MERCADORIAS E SERVICOS VENDIDOS',
      'CMV',
      'CPV',
      'CSP',
      'CUSTO',
    ],
  },
  grossProfit: { statement: 'INCOME', label: 'Lucro bruto', labels: ['LUCRO BRUTO', 'RESULTADO BRUTO', 'LUCRO OPERACIONAL BRUTO'] },
  ebitda: { statement: 'INCOME', label: 'EBITDA', labels: ['EBITDA', 'LAJIDA'] },
  operatingResult: {
    statement: 'INCOME',
    label: 'Resultado operacional',
    labels: ['RESULTADO OPERACIONAL', 'LUCRO OPERACIONAL', 'EBIT', 'LAJIR', 'RESULTADO ANTES DO RESULTADO FINANCEIRO', 'LUCRO ANTES DO RESULTADO FINANCEIRO'],
  },
  financialExpenses: { statement: 'INCOME', label: 'Despesas financeiras', labels: ['DESPESAS FINANCEIRAS'] },
  netIncome: {
    statement: 'INCOME',
    label: 'Lucro líquido',
    labels: ['LUCRO LIQUIDO', 'RESULTADO LIQUIDO', 'PREJUIZO LIQUIDO', 'PREJUIZO'],
  },
} as const satisfies Record<string, { statement: 'BALANCE' | 'INCOME'; label: string; labels: readonly string[] }>;

export type LineKey = keyof typeof STANDARD_LINES;
export const LINE_KEYS = Object.keys(STANDARD_LINES) as LineKey[];

/** Lines printed as expenses: kept as positive amounts whatever sign the layout used. */
const EXPENSES: ReadonlySet<LineKey> = new Set(['costOfSales', 'financialExpenses']);

/** A loss printed under a loss label ("Prejuízo do exercício 1.234") is a negative result. */
const LOSS_LABELS: ReadonlySet<string> = new Set(['PREJUIZO LIQUIDO', 'PREJUIZO']);

const BY_LABEL: ReadonlyMap<string, LineKey> = new Map(LINE_KEYS.flatMap((key) => STANDARD_LINES[key].labels.map((label) => [label, key] as const)));

/**
 * A printed label reduced to the form the synonym lists use: account codes ("1.1", "2.1.03"),
 * sign markers ("(-)", "(=)", "(+)"), parenthesized asides ("(Prejuízo)", "(Nota 12)"), "Total do"
 * and "do exercício" removed; "e do" read as "e".
 */
export function canonicalLabel(label: string): string {
  let text = normalizeText(label)
    .replace(/(?<![.:…_])[.:…_]+$/g, '')
    .replace(/\.{2,}/g, ' ');
  text = text.replace(/^(?:[\d.]+\s+|\(?[-+=]\)?\s*)+/, '');
  text = text.replace(/\([^()]*\)/g, ' ').replace(/\/\s*PREJUIZO\b/g, ' ');
  text = text.replace(/\s+/g, ' ').trim();
  text = text
    .replace(/^TOTAL (?:D[OA]S? )?/, '')
    .replace(/ TOTAL$/, '')
    .replace(/ D[OA] (?:EXERCICIO|PERIODO|ANO)$/, '');
  return text.replace(/ E D[OA] /g, ' E ').trim();
}

export interface MatchedLine {
  key: LineKey;
  /** Turns the printed amount (cents) into the standard one. */
  sign(cents: number): number;
}

export function matchLine(label: string): MatchedLine | null {
  const canonical = canonicalLabel(label);
  const key = BY_LABEL.get(canonical);
  if (!key) return null;
  if (EXPENSES.has(key)) return { key, sign: Math.abs };
  if (LOSS_LABELS.has(canonical)) return { key, sign: (cents) => (cents === 0 ? 0 : -Math.abs(cents)) };
  return { key, sign: (cents) => cents };
}

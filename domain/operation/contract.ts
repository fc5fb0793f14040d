import type { AmortizationModel, EntityType } from '../pricing/terms.ts';
import type { ChosenTerms } from '../proposal/installment.ts';
import { formatDocument } from '../shared/document.ts';
import { centsOf, formatBRL } from '../shared/money.ts';

/**
 * The contract a CONTRACT_SIGNATURE step generates: its template's text with `{{field}}`
 * placeholders filled from the proposal's data. The fields are in Portuguese, like the text
 * around them; an unknown one is refused when the pipeline is saved.
 */
export const CONTRACT_FIELDS = {
  nome: 'name of the customer (holder)',
  documento: 'CPF or CNPJ of the customer, formatted',
  produto: 'product name',
  modelo: 'amortization model: Price or SAC',
  valor: 'amount chosen, R$',
  valor_liberado: 'amount released (less upfront IOF and fees), R$',
  prazo: 'term in months',
  parcela: 'first installment, R$',
  taxa_mensal: 'monthly rate, %',
  taxa_anual: 'yearly rate, %',
  cet_mensal: 'CET per month, %',
  cet_anual: 'CET per year, %',
  iof: 'IOF, R$',
  tarifas: 'fees, R$',
  total: 'sum of the installments, R$',
  liberacao: 'release date, dd/mm/aaaa',
  primeiro_vencimento: 'first due date, dd/mm/aaaa',
  ultimo_vencimento: 'last due date, dd/mm/aaaa',
  cronograma: 'schedule summary in one sentence',
  partes: 'the signing parties, names and roles',
  data: 'date of the contract, dd/mm/aaaa',
} as const;
export type ContractField = keyof typeof CONTRACT_FIELDS;

const PLACEHOLDER = /\{\{\s*([a-z_]+)\s*\}\}/g;

/** The placeholders of a template that are not contract fields (empty: the template is usable). */
export function unknownContractFields(template: string): string[] {
  const unknown = [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!).filter((name) => !(name in CONTRACT_FIELDS));
  return [...new Set(unknown)];
}

export type ContractRole = 'CLIENTE' | 'AVALISTA' | 'SÓCIO' | 'CÔNJUGE' | 'TITULAR' | 'INTERVENIENTE';

export interface ContractParty {
  name: string;
  role: ContractRole;
}

/** Everything a contract says, gathered by the process manager from the proposal and its choice. */
export interface ContractFacts {
  customer: { name: string; document: string; entityType: EntityType };
  productName: string;
  model: AmortizationModel;
  terms: ChosenTerms;
  parties: ContractParty[];
  /** YYYY-MM-DD: the day (in Brasília) the contract is generated. */
  date: string;
}

const NOT_GIVEN = 'não informado';
const money = (reais: number | null) => (reais === null ? NOT_GIVEN : formatBRL(centsOf(reais)));
const percent = (value: number | null) => (value === null ? NOT_GIVEN : `${value.toLocaleString('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 4 })}%`);
const day = (iso: string | null) => (iso ? iso.slice(0, 10).split('-').reverse().join('/') : NOT_GIVEN);

/** The due date of installment n (1-based) counted from the first: same day each month, the month's last day when that day does not exist. */
export function dueDate(firstDueDate: string, n: number): string {
  const [y, m, d] = firstDueDate.split('-').map(Number) as [number, number, number];
  const monthIndex = m - 1 + (n - 1);
  const last = new Date(Date.UTC(y, monthIndex + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, monthIndex, Math.min(d, last))).toISOString().slice(0, 10);
}

export function contractFields(facts: ContractFacts): Record<ContractField, string> {
  const { terms } = facts;
  const last = terms.firstDueDate ? dueDate(terms.firstDueDate, terms.termMonths) : null;
  const model = facts.model === 'SAC' ? 'SAC' : 'Price';
  const first = facts.model === 'SAC' ? 'a primeira de' : 'cada uma de';
  return {
    nome: facts.customer.name,
    documento: formatDocument({ type: facts.customer.entityType === 'COMPANY' ? 'cnpj' : 'cpf', digits: facts.customer.document }),
    produto: facts.productName,
    modelo: model,
    valor: money(terms.amount),
    valor_liberado: money(terms.netReleased),
    prazo: String(terms.termMonths),
    parcela: money(terms.installment),
    taxa_mensal: percent(terms.monthlyRatePercent),
    taxa_anual: percent(terms.yearlyRatePercent),
    cet_mensal: percent(terms.cetMonthlyPercent),
    cet_anual: percent(terms.cetYearlyPercent),
    iof: money(terms.iof),
    tarifas: money(terms.fees),
    total: money(terms.totalPayable),
    liberacao: day(terms.releaseDate),
    primeiro_vencimento: day(terms.firstDueDate),
    ultimo_vencimento: day(last),
    cronograma: `${terms.termMonths} parcelas mensais (${model}), ${first} ${money(terms.installment)}, de ${day(terms.firstDueDate)} a ${day(last)}; total de ${money(terms.totalPayable)}.`,
    partes: facts.parties.map((p) => `${p.name} (${p.role.toLowerCase()})`).join('; '),
    data: day(facts.date),
  };
}

/** The template with every placeholder replaced (the template was checked for unknown ones when saved). */
export const fillContract = (template: string, fields: Record<ContractField, string>) =>
  template.replace(PLACEHOLDER, (whole, name: string) => (name in fields ? fields[name as ContractField] : whole));

/** The summary the service appends after the template's text, so every contract states its terms the same way. */
export function contractSummary(fields: Record<ContractField, string>): Array<[string, string]> {
  return [
    ['Cliente', `${fields.nome}, ${fields.documento}`],
    ['Produto', fields.produto],
    ['Valor contratado', fields.valor],
    ['Valor liberado', fields.valor_liberado],
    ['Prazo', `${fields.prazo} meses`],
    ['Taxa de juros', `${fields.taxa_mensal} ao mês (${fields.taxa_anual} ao ano)`],
    ['CET', `${fields.cet_mensal} ao mês (${fields.cet_anual} ao ano)`],
    ['IOF', fields.iof],
    ['Tarifas', fields.tarifas],
    ['Liberação', fields.liberacao],
    ['Cronograma', fields.cronograma],
    ['Partes', fields.partes],
  ];
}

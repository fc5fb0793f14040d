import { SECTION_TYPES, type SectionType } from '../../../domain/report/sections.ts';

/**
 * Portuguese names for the fields of the normalized section data (docs/reports.md, "Section
 * data"), so an export reads as a document and not as JSON keys. A field missing here (a source
 * that adds one) still reads, humanized from its key. The order here is the reading order:
 * stored data (jsonb) comes back with its keys sorted by length.
 */
const FIELD_LABELS: Record<string, string> = {
  name: 'Nome',
  birthDate: 'Data de nascimento',
  ageYears: 'Idade (anos)',
  registrationStatus: 'Situação cadastral',
  registrationStatusDate: 'Data da situação cadastral',
  deceased: 'Óbito registrado',
  motherName: 'Nome da mãe',
  tradeName: 'Nome fantasia',
  foundedAt: 'Data de abertura',
  companyAgeYears: 'Idade da empresa (anos)',
  legalNature: 'Natureza jurídica',
  size: 'Porte',
  shareCapitalCents: 'Capital social',
  simplesNacional: 'Optante pelo Simples Nacional',
  mainActivity: 'Atividade principal',
  secondaryActivities: 'Atividades secundárias',
  code: 'Código',
  description: 'Descrição',
  partners: 'Sócios',
  role: 'Qualificação',
  street: 'Logradouro',
  number: 'Número',
  complement: 'Complemento',
  district: 'Bairro',
  city: 'Cidade',
  state: 'UF',
  zipCode: 'CEP',
  country: 'País',
  hasSanctions: 'Possui sanções',
  count: 'Quantidade',
  records: 'Registros',
  bureau: 'Cartórios de protesto',
  protestsQuantity: 'Quantidade de protestos',
  protestsAmountCents: 'Valor total protestado',
  protests: 'Protestos',
  notary: 'Cartório',
  amountCents: 'Valor',
  date: 'Data',
  totalAmountCents: 'Valor total',
  creditor: 'Credor',
  referenceMonth: 'Mês de referência',
  totalDebtCents: 'Dívida total',
  overdueCents: 'Dívida vencida',
  lossCents: 'Prejuízo',
  institutionsCount: 'Instituições',
  operationsCount: 'Operações',
  totalCount: 'Total de processos',
  asDefendantCount: 'Como réu',
  asPlaintiffCount: 'Como autor',
  processes: 'Processos',
  allClear: 'Todas negativas',
  certificates: 'Certidões',
  kind: 'Tipo',
  status: 'Situação',
  issuedAt: 'Emitida em',
  validUntil: 'Válida até',
  sector: 'Setor',
  hasRecords: 'Possui registros',
  negativeMentions: 'Menções negativas',
  mentions: 'Menções',
  referenceYear: 'Ano de referência',
  revenueCents: 'Receita',
  netIncomeCents: 'Lucro líquido',
  totalAssetsCents: 'Ativo total',
  totalLiabilitiesCents: 'Passivo total',
  equityCents: 'Patrimônio líquido',
};

/** A company's name is its corporate name (a partner's, deeper down, is still a name). */
const COMPANY_FIELD_LABELS: Partial<Record<SectionType, Record<string, string>>> = {
  BASIC_INFORMATION: { name: 'Razão social' },
};

/** What one element of a list is called: "Protesto 2". */
const ITEM_LABELS: Record<string, string> = {
  protests: 'Protesto',
  records: 'Registro',
  partners: 'Sócio',
  certificates: 'Certidão',
  processes: 'Processo',
  mentions: 'Menção',
  secondaryActivities: 'Atividade',
};

/** Codes of the data that have a Portuguese name; Receita's own words (ATIVA, NEGATIVA) stay. */
const VALUE_LABELS: Record<string, string> = {
  FEDERAL_DEBT: 'Débitos federais',
  LABOR_DEBT: 'Débitos trabalhistas',
  FGTS: 'Regularidade do FGTS',
  BR: 'Brasil',
};

export const DECISION_TITLES: Record<string, string> = {
  PENDING: 'Pendente',
  PROCESSING: 'Em processamento',
  APPROVED: 'Aprovado',
  DENIED: 'Negado',
  MANUAL_ANALYSIS: 'Em análise manual',
};

export const SECTION_STATUS_TITLES: Record<string, string> = {
  PENDING: 'Pendente',
  DONE: 'Concluída',
  ERROR: 'Com erro',
  SKIPPED: 'Não consultada',
};

export const SECTION_ERROR_TITLES: Record<string, string> = {
  INTEGRATION_TIMEOUT: 'A fonte não respondeu a tempo',
  INTEGRATION_UNAVAILABLE: 'Fonte indisponível',
  INTEGRATION_NO_DATA: 'A fonte não tem dados deste documento',
  INTEGRATION_INVALID_DOCUMENT: 'A fonte recusou o documento',
};

/** `registrationStatusDate` -> `Registration status date`: readable, if not translated. */
function humanize(key: string): string {
  const words = key
    .replace(/Cents$/, '')
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function fieldLabel(key: string): string {
  return FIELD_LABELS[key] ?? humanize(key);
}

/** A field at the top of a section's data, where the subject's kind may change its name. */
export function topFieldLabel(key: string, section: string, documentType: 'cpf' | 'cnpj'): string {
  return (documentType === 'cnpj' ? COMPANY_FIELD_LABELS[section as SectionType]?.[key] : undefined) ?? fieldLabel(key);
}

const RANK = new Map(Object.keys(FIELD_LABELS).map((key, i) => [key, i]));

/** Fields in reading order; unknown ones after the known, as they came. */
export function inReadingOrder<T>(entries: Array<[string, T]>): Array<[string, T]> {
  const rank = (key: string) => RANK.get(key) ?? RANK.size;
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => rank(a.entry[0]) - rank(b.entry[0]) || a.i - b.i)
    .map(({ entry }) => entry);
}

export function itemLabel(listKey: string, position: number): string {
  return `${ITEM_LABELS[listKey] ?? fieldLabel(listKey)} ${position}`;
}

export function valueLabel(code: string): string {
  return VALUE_LABELS[code] ?? code;
}

/** A variable of a policy rule (`PROTESTS.bureau.protestsQuantity`) in the words of the export. */
export function variableLabel(path: string): string {
  const [head = '', ...rest] = path.split('.');
  const first = head in SECTION_TYPES ? SECTION_TYPES[head as SectionType].title : head === 'inputs' ? 'Dados de entrada' : head === 'document' ? 'Documento' : fieldLabel(head);
  return [first, ...rest.map(fieldLabel)].join(' › ');
}

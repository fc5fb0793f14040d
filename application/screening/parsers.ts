import { SaxesParser } from 'saxes';
import type { ListEntry, PartyKind, ScreeningList } from '../../domain/screening/index.ts';

/**
 * Streaming parsers of the lists in their published formats: each reads the file chunk by chunk
 * and hands its entries over in batches (`onEntries` is awaited before the next chunk is read),
 * so memory holds one chunk and one batch, never the file (OFAC's sdn.xml is ~25 MB).
 */

export type Chunks = AsyncIterable<Buffer>;
export type OnEntries = (entries: ListEntry[]) => Promise<void>;

/** What a parse learnt of the file beyond its entries. */
export interface ParsedFile {
  /** The publication date the file itself carries (ISO 8601), or null. */
  publishedAt: string | null;
}

/** The file is not the list it was configured as: the message says what was missing. */
export class ListFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListFormatError';
  }
}

// ---------------------------------------------------------------------------------------------
// XML (OFAC SDN, UN consolidated list)

interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  text: string;
  children: XmlNode[];
}

const childText = (node: XmlNode, name: string) => node.children.find((c) => c.name === name)?.text.trim() ?? '';
const childrenNamed = (node: XmlNode, name: string) => node.children.filter((c) => c.name === name);
/** Descendants by a path of element names (`akaList/aka`). */
const descendants = (node: XmlNode, path: string) => path.split('/').reduce<XmlNode[]>((nodes, name) => nodes.flatMap((n) => childrenNamed(n, name)), [node]);
const joined = (...parts: string[]) =>
  parts
    .map((p) => p.trim())
    .filter(Boolean)
    .join(' ');

/**
 * Feed the XML to saxes and hand every element named in `records` over as a small tree (records
 * are a few kilobytes); `outside` sees the text of elements outside records and the root's
 * attributes (where publication dates live).
 */
async function parseXmlRecords(
  chunks: Chunks,
  records: ReadonlySet<string>,
  toEntry: (record: XmlNode) => ListEntry | null,
  onEntries: OnEntries,
  outside: (name: string, text: string, attributes: Record<string, string>) => void,
): Promise<void> {
  const parser = new SaxesParser();
  const stack: XmlNode[] = [];
  let record: XmlNode[] | null = null;
  let batch: ListEntry[] = [];
  let failure: Error | null = null;
  let outsideText = '';
  let seenRoot = false;
  parser.on('error', (error) => {
    failure ??= new ListFormatError(`XML inválido: ${error.message}`);
  });
  parser.on('opentag', (tag) => {
    const node: XmlNode = { name: tag.name, attributes: tag.attributes as Record<string, string>, text: '', children: [] };
    if (!seenRoot) {
      seenRoot = true;
      outside(tag.name, '', node.attributes);
    }
    if (record) {
      record[record.length - 1]!.children.push(node);
      record.push(node);
    } else if (records.has(tag.name)) {
      record = [node];
    }
    stack.push(node);
    outsideText = '';
  });
  parser.on('text', (text) => {
    if (record) record[record.length - 1]!.text += text;
    else outsideText += text;
  });
  parser.on('closetag', (tag) => {
    stack.pop();
    if (record) {
      const node = record.pop()!;
      if (record.length === 0) {
        record = null;
        const entry = toEntry(node);
        if (entry) batch.push(entry);
      }
    } else {
      outside(tag.name, outsideText.trim(), {});
      outsideText = '';
    }
  });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    parser.write(decoder.decode(chunk, { stream: true }));
    if (failure) throw failure;
    if (batch.length > 0) {
      const ready = batch;
      batch = [];
      await onEntries(ready);
    }
  }
  parser.write(decoder.decode());
  parser.close();
  if (failure) throw failure;
  if (!seenRoot) throw new ListFormatError('o arquivo não contém XML');
  if (batch.length > 0) await onEntries(batch);
}

const OFAC_KINDS: Record<string, PartyKind> = { individual: 'PERSON', entity: 'COMPANY', vessel: 'OTHER', aircraft: 'OTHER' };

/** OFAC's Publish_Date is MM/DD/YYYY. */
function usDate(text: string): string | null {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text.trim());
  return match ? `${match[3]}-${match[1]!.padStart(2, '0')}-${match[2]!.padStart(2, '0')}` : null;
}

/**
 * OFAC's `sdn.xml` (namespace http://tempuri.org/sdnList.xsd): `publshInformation/Publish_Date`
 * and one `sdnEntry` per party (uid, firstName, lastName, sdnType, programList, akaList). Weak
 * a.k.a.s are left out, as OFAC itself advises screening them only with other information.
 */
export async function parseOfacSdn(chunks: Chunks, onEntries: OnEntries): Promise<ParsedFile> {
  let publishedAt: string | null = null;
  let root: string | null = null;
  await parseXmlRecords(
    chunks,
    new Set(['sdnEntry']),
    (node) => {
      const name = joined(childText(node, 'firstName'), childText(node, 'lastName'));
      if (!name) return null;
      const aliases = descendants(node, 'akaList/aka')
        .filter((aka) => childText(aka, 'category').toLowerCase() !== 'weak')
        .map((aka) => joined(childText(aka, 'firstName'), childText(aka, 'lastName')))
        .filter(Boolean);
      const type = childText(node, 'sdnType');
      return {
        ref: childText(node, 'uid'),
        kind: OFAC_KINDS[type.toLowerCase()] ?? null,
        name,
        aliases,
        documents: [],
        maskedCpf: null,
        details: {
          sdnType: type,
          programs: descendants(node, 'programList/program')
            .map((p) => p.text.trim())
            .join(', '),
          ...(childText(node, 'remarks') ? { remarks: childText(node, 'remarks') } : {}),
        },
      };
    },
    onEntries,
    (name, text) => {
      root ??= name;
      if (name === 'Publish_Date') publishedAt = usDate(text);
    },
  );
  if (root !== 'sdnList') throw new ListFormatError(`não é o sdn.xml da OFAC: o elemento raiz é ${root}, não sdnList`);
  return { publishedAt };
}

/**
 * The UN Security Council consolidated list (`consolidated.xml`): root `CONSOLIDATED_LIST` with
 * `dateGenerated`, `INDIVIDUALS/INDIVIDUAL` and `ENTITIES/ENTITY` (DATAID, FIRST_NAME to
 * FOURTH_NAME, UN_LIST_TYPE, REFERENCE_NUMBER, LISTED_ON, *_ALIAS with QUALITY and ALIAS_NAME).
 * Aliases of QUALITY Low are left out, as the list marks them unreliable.
 */
export async function parseUnConsolidated(chunks: Chunks, onEntries: OnEntries): Promise<ParsedFile> {
  let publishedAt: string | null = null;
  let root: string | null = null;
  await parseXmlRecords(
    chunks,
    new Set(['INDIVIDUAL', 'ENTITY']),
    (node) => {
      const person = node.name === 'INDIVIDUAL';
      const name = joined(...['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map((field) => childText(node, field)));
      if (!name) return null;
      const aliases = childrenNamed(node, person ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS')
        .filter((alias) => childText(alias, 'QUALITY').toLowerCase() !== 'low')
        .map((alias) => childText(alias, 'ALIAS_NAME'))
        .filter(Boolean);
      return {
        ref: childText(node, 'DATAID') || childText(node, 'REFERENCE_NUMBER'),
        kind: person ? 'PERSON' : 'COMPANY',
        name,
        aliases,
        documents: [],
        maskedCpf: null,
        details: {
          referenceNumber: childText(node, 'REFERENCE_NUMBER'),
          unListType: childText(node, 'UN_LIST_TYPE'),
          listedOn: childText(node, 'LISTED_ON'),
        },
      };
    },
    onEntries,
    (name, _text, attributes) => {
      if (root) return;
      root = name;
      const generated = attributes.dateGenerated;
      publishedAt = generated && !Number.isNaN(Date.parse(generated)) ? new Date(generated).toISOString() : null;
    },
  );
  if (root !== 'CONSOLIDATED_LIST') throw new ListFormatError(`não é a lista consolidada da ONU: o elemento raiz é ${root}, não CONSOLIDATED_LIST`);
  return { publishedAt };
}

// ---------------------------------------------------------------------------------------------
// CSV (Portal da Transparência: CEIS, CNEP, PEP)

/**
 * The Portal's CSVs: `;` separated, every field in double quotes (`""` inside one), ISO-8859-1
 * (a UTF-8 byte order mark, if a file ever has one, switches to UTF-8). Rows are handed over as
 * records keyed by the header's names.
 */
async function parseSemicolonCsv(chunks: Chunks, onRow: (row: Record<string, string>, line: number) => void, flush: () => Promise<void>): Promise<string[]> {
  let header: string[] | null = null;
  let field = '';
  let row: string[] = [];
  let quoted = false;
  let afterQuote = false;
  let line = 1;
  let decode: ((chunk: Buffer) => string) | null = null;
  const utf8 = new TextDecoder('utf-8');
  const endRow = () => {
    row.push(field);
    field = '';
    const cells = row;
    row = [];
    if (cells.length === 1 && cells[0] === '') return;
    if (!header) header = cells.map((name) => name.trim());
    else onRow(Object.fromEntries(header.map((name, i) => [name, (cells[i] ?? '').trim()])), line);
  };
  for await (const chunk of chunks) {
    if (!decode) {
      const bom = chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
      // TextDecoder drops the mark itself.
      decode = bom ? (c) => utf8.decode(c, { stream: true }) : (c) => c.toString('latin1');
    }
    const text = decode(chunk);
    for (let i = 0; i < text.length; i++) {
      const char = text[i]!;
      if (quoted) {
        if (char === '"') {
          quoted = false;
          afterQuote = true;
        } else field += char;
        continue;
      }
      if (char === '"') {
        // `""` inside a quoted field is one quote.
        if (afterQuote) field += '"';
        quoted = true;
        afterQuote = false;
        continue;
      }
      afterQuote = false;
      if (char === ';') {
        row.push(field);
        field = '';
      } else if (char === '\n') {
        endRow();
        line++;
      } else if (char !== '\r') field += char;
    }
    await flush();
  }
  if (quoted) throw new ListFormatError(`aspas não fechadas na linha ${line}`);
  if (field !== '' || row.length > 0) endRow();
  await flush();
  return header ?? [];
}

const digitsOf = (text: string) => text.replace(/\D/g, '');

/** A Portal document cell: a full CPF/CNPJ, or a CPF masked `***.456.789-**` / `***456789**`. */
function documentCell(text: string): { documents: string[]; maskedCpf: string | null } {
  if (text.includes('*')) {
    const masked = text.replace(/[^0-9*]/g, '');
    const visible = /^\*{3}(\d{6})\*{2}$/.exec(masked);
    return { documents: [], maskedCpf: visible ? visible[1]! : null };
  }
  const digits = digitsOf(text);
  return { documents: digits.length === 11 || digits.length === 14 ? [digits] : [], maskedCpf: null };
}

const CEIS_COLUMNS = [
  'CADASTRO',
  'CÓDIGO DA SANÇÃO',
  'TIPO DE PESSOA',
  'CPF OU CNPJ DO SANCIONADO',
  'NOME DO SANCIONADO',
  'CATEGORIA DA SANÇÃO',
  'DATA INÍCIO SANÇÃO',
  'DATA FINAL SANÇÃO',
  'ÓRGÃO SANCIONADOR',
];
const CEIS_NAMES = ['NOME INFORMADO PELO ÓRGÃO SANCIONADOR', 'RAZÃO SOCIAL - CADASTRO RECEITA', 'NOME FANTASIA - CADASTRO RECEITA'];
const CEIS_DETAILS: Record<string, string> = {
  CADASTRO: 'cadastro',
  'CATEGORIA DA SANÇÃO': 'categoriaSancao',
  'DATA INÍCIO SANÇÃO': 'dataInicioSancao',
  'DATA FINAL SANÇÃO': 'dataFinalSancao',
  'ÓRGÃO SANCIONADOR': 'orgaoSancionador',
  'UF ÓRGÃO SANCIONADOR': 'ufOrgaoSancionador',
  'NÚMERO DO PROCESSO': 'numeroProcesso',
  'FUNDAMENTAÇÃO LEGAL': 'fundamentacaoLegal',
  'ABRANGÊNCIA DA SANÇÃO': 'abrangenciaSancao',
  'VALOR DA MULTA': 'valorMulta',
};
const PEP_COLUMNS = ['CPF', 'Nome_PEP', 'Sigla_Função', 'Descrição_Função', 'Nível_Função', 'Nome_Órgão', 'Data_Início_Exercício', 'Data_Fim_Exercício', 'Data_Fim_Carência'];
const PEP_DETAILS: Record<string, string> = {
  Sigla_Função: 'siglaFuncao',
  Descrição_Função: 'descricaoFuncao',
  Nível_Função: 'nivelFuncao',
  Nome_Órgão: 'nomeOrgao',
  Data_Início_Exercício: 'dataInicioExercicio',
  Data_Fim_Exercício: 'dataFimExercicio',
  Data_Fim_Carência: 'dataFimCarencia',
};

const pick = (row: Record<string, string>, names: Record<string, string>) => Object.fromEntries(Object.entries(names).flatMap(([column, key]) => (row[column] ? [[key, row[column]]] : [])));

async function parsePortalCsv(
  chunks: Chunks,
  onEntries: OnEntries,
  label: string,
  required: readonly string[],
  toEntry: (row: Record<string, string>, line: number) => ListEntry | null,
): Promise<ParsedFile> {
  let batch: ListEntry[] = [];
  let checked = false;
  const header = await parseSemicolonCsv(
    chunks,
    (row, line) => {
      if (!checked) {
        const missing = required.filter((column) => !(column in row));
        if (missing.length > 0) throw new ListFormatError(`não é o CSV do ${label}: faltam as colunas ${missing.join(', ')}`);
        checked = true;
      }
      const entry = toEntry(row, line);
      if (entry) batch.push(entry);
    },
    async () => {
      if (batch.length === 0) return;
      const ready = batch;
      batch = [];
      await onEntries(ready);
    },
  );
  const missing = required.filter((column) => !header.includes(column));
  if (missing.length > 0) throw new ListFormatError(`não é o CSV do ${label}: faltam as colunas ${missing.join(', ')}`);
  // The Portal's CSVs carry no date inside; the file name does (see publishedAtOfName).
  return { publishedAt: null };
}

/** CEIS or CNEP (same layout; CNEP adds VALOR DA MULTA). */
export function parseSanctionsRegister(label: 'CEIS' | 'CNEP') {
  return (chunks: Chunks, onEntries: OnEntries) =>
    parsePortalCsv(chunks, onEntries, label, CEIS_COLUMNS, (row) => {
      const name = row['NOME DO SANCIONADO']!;
      if (!name) return null;
      const aliases = [...new Set(CEIS_NAMES.map((column) => row[column] ?? '').filter((alias) => alias && alias !== name))];
      const type = row['TIPO DE PESSOA']!.toUpperCase();
      return {
        ref: row['CÓDIGO DA SANÇÃO']!,
        kind: type === 'F' ? 'PERSON' : type === 'J' ? 'COMPANY' : null,
        name,
        aliases,
        ...documentCell(row['CPF OU CNPJ DO SANCIONADO']!),
        details: pick(row, CEIS_DETAILS),
      };
    });
}

/** The PEP file: CPFs masked by the Portal (`***.456.789-**`). */
export function parsePep(chunks: Chunks, onEntries: OnEntries): Promise<ParsedFile> {
  return parsePortalCsv(chunks, onEntries, 'PEP', PEP_COLUMNS, (row, line) => {
    const name = row.Nome_PEP!;
    if (!name) return null;
    return { ref: `linha ${line}`, kind: 'PERSON', name, aliases: [], ...documentCell(row.CPF!), details: pick(row, PEP_DETAILS) };
  });
}

export const PARSERS: Record<ScreeningList, (chunks: Chunks, onEntries: OnEntries) => Promise<ParsedFile>> = {
  OFAC_SDN: parseOfacSdn,
  UN_CONSOLIDATED: parseUnConsolidated,
  CEIS: parseSanctionsRegister('CEIS'),
  CNEP: parseSanctionsRegister('CNEP'),
  PEP: parsePep,
};

/**
 * The Portal names its files by date (`20261120_CEIS.csv`, `202610_PEP.csv`, download addresses
 * `.../download-de-dados/ceis/20261120`): that date, when the source's last segment has one.
 */
export function publishedAtOfName(source: string): string | null {
  const name = source.split(/[?#]/)[0]!.split(/[/\\]/).filter(Boolean).pop() ?? '';
  const match = /^(\d{4})(\d{2})(\d{2})?(?:\D|$)/.exec(name);
  if (!match) return null;
  const [year, month, day = '01'] = [match[1]!, match[2]!, match[3]];
  const iso = `${year}-${month}-${day}`;
  return Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) || Number(month) > 12 ? null : iso;
}

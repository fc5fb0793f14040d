import { randomBytes } from 'node:crypto';
import PDFDocument from 'pdfkit';
import { PDFDocument as LibDocument, StandardFonts } from 'pdf-lib';
import type { LineKey } from '../../domain/financial/lines.ts';

/**
 * Balance sheets and income statements with known figures, printed the way Brazilian accountants
 * lay them out, as text rows and as real PDFs (pdfkit positions cells by x; pdf-lib draws them).
 */
export type Figures = Record<string, Partial<Record<LineKey, number>>>;

export interface Layout {
  /** Column headers as 31/12/2024 or as 2024. */
  dates: 'full' | 'year';
  /** 1 (reais, with centavos) or 1000 ("Em R$ mil"; figures must then be whole thousands). */
  scale: 1 | 1000;
  negatives: 'parens' | 'minus';
  /** A "Nota" column before the amounts. */
  notes: boolean;
  /** Account codes before the labels ("1.1 Ativo circulante"). */
  codes: boolean;
  /** Assets and liabilities side by side on the same rows. */
  sideBySide: boolean;
  /** A first row naming the company (the registry's analysis checks the statement names its subject). */
  heading?: string;
}

/** Known figures of two years (in cents, whole thousands so every layout can print them). */
export const KNOWN: Figures = {
  '2024-12-31': {
    currentAssets: 150_000_000,
    cash: 30_000_000,
    inventories: 40_000_000,
    nonCurrentAssets: 250_000_000,
    totalAssets: 400_000_000,
    currentLiabilities: 100_000_000,
    nonCurrentLiabilities: 100_000_000,
    equity: 200_000_000,
    totalLiabilitiesAndEquity: 400_000_000,
    grossRevenue: 600_000_000,
    netRevenue: 550_000_000,
    costOfSales: 300_000_000,
    grossProfit: 250_000_000,
    ebitda: 90_000_000,
    financialExpenses: 20_000_000,
    operatingResult: 60_000_000,
    netIncome: 30_000_000,
  },
  '2023-12-31': {
    currentAssets: 120_000_000,
    cash: 25_000_000,
    inventories: 35_000_000,
    nonCurrentAssets: 230_000_000,
    totalAssets: 350_000_000,
    currentLiabilities: 90_000_000,
    nonCurrentLiabilities: 80_000_000,
    equity: 180_000_000,
    totalLiabilitiesAndEquity: 350_000_000,
    grossRevenue: 500_000_000,
    netRevenue: 460_000_000,
    costOfSales: 260_000_000,
    grossProfit: 200_000_000,
    ebitda: 70_000_000,
    financialExpenses: 15_000_000,
    operatingResult: 45_000_000,
    netIncome: -5_000_000,
  },
};

export const PLAIN_LAYOUT: Layout = { dates: 'full', scale: 1, negatives: 'parens', notes: false, codes: false, sideBySide: false };

type Row = { label: string; key: LineKey | null; code: string; negative?: boolean };
const ALL_ASSETS: Row[] = [
  { label: 'Ativo Circulante', key: 'currentAssets', code: '1.1' },
  { label: 'Caixa e equivalentes de caixa', key: 'cash', code: '1.1.01' },
  { label: 'Estoques', key: 'inventories', code: '1.1.03' },
  { label: 'Ativo Não Circulante', key: 'nonCurrentAssets', code: '1.2' },
  { label: 'Total do Ativo', key: 'totalAssets', code: '1' },
];
const ALL_LIABILITIES: Row[] = [
  { label: 'Passivo Circulante', key: 'currentLiabilities', code: '2.1' },
  { label: 'Passivo Não Circulante', key: 'nonCurrentLiabilities', code: '2.2' },
  { label: 'Patrimônio Líquido', key: 'equity', code: '2.3' },
  { label: 'Total do Passivo e do Patrimônio Líquido', key: 'totalLiabilitiesAndEquity', code: '2' },
];
const ALL_INCOME: Row[] = [
  { label: 'Receita Operacional Bruta', key: 'grossRevenue', code: '3.1' },
  { label: '(-) Deduções da receita bruta', key: null, code: '3.2', negative: true },
  { label: '(=) Receita Líquida', key: 'netRevenue', code: '3.3' },
  { label: '(-) Custo dos Produtos Vendidos', key: 'costOfSales', code: '3.4', negative: true },
  { label: '(=) Lucro Bruto', key: 'grossProfit', code: '3.5' },
  { label: 'EBITDA', key: 'ebitda', code: '3.6' },
  { label: '(-) Despesas Financeiras', key: 'financialExpenses', code: '3.7', negative: true },
  { label: 'Resultado Operacional', key: 'operatingResult', code: '3.8' },
  { label: 'Lucro (Prejuízo) Líquido do Exercício', key: 'netIncome', code: '3.9' },
];

/** 123456789 cents → "1.234.567,89" (or "1.235" in thousands). */
export function formatAmount(cents: number, layout: Pick<Layout, 'scale' | 'negatives'>): string {
  const units = Math.abs(cents) / (100 * layout.scale);
  const [whole, fraction] = (layout.scale === 1 ? units.toFixed(2) : units.toFixed(0)).split('.');
  let grouped = whole!;
  for (let at = grouped.length - 3; at > 0; at -= 3) grouped = `${grouped.slice(0, at)}.${grouped.slice(at)}`;
  const text = fraction ? `${grouped},${fraction}` : grouped;
  if (cents >= 0) return text;
  return layout.negatives === 'parens' ? `(${text})` : `-${text}`;
}

const header = (periods: string[], layout: Layout) => periods.map((p) => (layout.dates === 'full' ? `${p.slice(8, 10)}/${p.slice(5, 7)}/${p.slice(0, 4)}` : p.slice(0, 4)));

function cells(row: Row, periods: string[], figures: Figures, layout: Layout, index: number): string[] {
  const amounts = periods.map((p) => {
    const cents = row.key ? figures[p]![row.key] : 12_300_000;
    if (cents === undefined) return '-';
    return formatAmount(row.negative ? -Math.abs(cents) : cents, layout);
  });
  const label = layout.codes ? `${row.code} ${row.label}` : row.label;
  return [label, ...(layout.notes ? [String((index % 9) + 1)] : []), ...amounts];
}

/** The printed rows (each a list of cells), balance sheet then income statement; a line no period has is not printed. */
export function statementRows(figures: Figures, layout: Layout): string[][] {
  const periods = Object.keys(figures).sort().reverse();
  const printed = (row: Row) => row.key === null || periods.some((p) => figures[p]![row.key!] !== undefined);
  const ASSETS = ALL_ASSETS.filter(printed);
  const LIABILITIES = ALL_LIABILITIES.filter(printed);
  const INCOME = ALL_INCOME.filter(printed);
  const columns = header(periods, layout);
  const notes = layout.notes ? ['Nota'] : [];
  const title = ['BALANÇO PATRIMONIAL', ...(layout.scale === 1000 ? ['(Em R$ mil)'] : ['(Em reais)'])];
  const balance: string[][] = [];
  if (layout.sideBySide) {
    balance.push(['ATIVO', ...notes, ...columns, 'PASSIVO', ...notes, ...columns]);
    ASSETS.forEach((row, i) => balance.push([...cells(row, periods, figures, layout, i), ...(LIABILITIES[i] ? cells(LIABILITIES[i]!, periods, figures, layout, i) : [])]));
  } else {
    balance.push(['Descrição', ...notes, ...columns]);
    [...ASSETS, ...LIABILITIES].forEach((row, i) => balance.push(cells(row, periods, figures, layout, i)));
  }
  const income = INCOME.map((row, i) => cells(row, periods, figures, layout, i));
  return [...(layout.heading ? [[layout.heading]] : []), title, ...balance, ['DEMONSTRAÇÃO DO RESULTADO DO EXERCÍCIO'], ['Descrição', ...notes, ...columns], ...income];
}

export const statementText = (figures: Figures, layout: Layout): string =>
  statementRows(figures, layout)
    .map((r) => r.join(' '))
    .join('\n');

/** The cells of a row in x positions: labels at the left of each half, amounts right-aligned. */
function positions(row: string[], width: number): Array<{ text: string; x: number }> {
  const out: Array<{ text: string; x: number }> = [];
  let x = 40;
  for (const cell of row) {
    const isLabel = /[A-Za-z\u00C0-\u00FA]/.test(cell) && !/^\d/.test(cell);
    out.push({ text: cell, x });
    x += isLabel ? Math.max(170, cell.length * 5.2) : 75;
    if (x > width - 60) x = width - 60;
  }
  return out;
}

/** A real PDF made with pdfkit (the A4 pages pdf-parse reads). */
export async function pdfkitStatements(figures: Figures, layout: Layout): Promise<Buffer> {
  const doc = new PDFDocument({ size: layout.sideBySide ? [1100, 842] : 'A4', margin: 30 });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  doc.fontSize(8);
  let y = 40;
  for (const row of statementRows(figures, layout)) {
    for (const { text, x } of positions(row, layout.sideBySide ? 1100 : 595)) doc.text(text, x, y, { lineBreak: false });
    y += 16;
    if (y > 800) {
      doc.addPage();
      y = 40;
    }
  }
  doc.end();
  return ended;
}

/** The same statements drawn with pdf-lib, one statement per page. */
export async function pdfLibStatements(figures: Figures, layout: Layout): Promise<Buffer> {
  const pdf = await LibDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  const width = layout.sideBySide ? 1100 : 595;
  let page = pdf.addPage([width, 842]);
  let y = 800;
  for (const row of statementRows(figures, layout)) {
    if (row[0] === 'DEMONSTRAÇÃO DO RESULTADO DO EXERCÍCIO') {
      page = pdf.addPage([width, 842]);
      y = 800;
    }
    for (const { text, x } of positions(row, width)) page.drawText(text, { x, y, size: 8, font });
    y -= 16;
  }
  return Buffer.from(await pdf.save());
}

/** Statements drawn with pdf-lib, grown to `totalBytes` by an attachment of random (incompressible) bytes, as scanned annexes make real files large. */
export async function paddedStatements(figures: Figures, layout: Layout, totalBytes: number): Promise<Buffer> {
  const pdf = await LibDocument.load(await pdfLibStatements(figures, layout));
  await pdf.attach(randomBytes(Math.max(0, totalBytes - 8192)), 'anexos.bin', { mimeType: 'application/octet-stream' });
  return Buffer.from(await pdf.save());
}

import { PDFDocument, StandardFonts, type PDFFont, type PDFPage } from 'pdf-lib';
import { contractSummary, fillContract, type ContractFacts, contractFields } from '../../domain/operation/contract.ts';

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 56;
const SIZE = 11;
const LEADING = 15;
const WIDTH = A4[0] - 2 * MARGIN;

/** The standard fonts draw WinAnsi only: anything else (an emoji, a CJK name) becomes "?" instead of failing the contract. */
function drawable(font: PDFFont, text: string): string {
  const known = new Set(font.getCharacterSet());
  return [...text.normalize('NFC')].map((c) => (known.has(c.codePointAt(0)!) ? c : '?')).join('');
}

/** Words laid into lines no wider than the text column; a word longer than a line is cut. */
function wrap(font: PDFFont, text: string, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (font.widthOfTextAtSize(candidate, size) <= WIDTH) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    let rest = word;
    while (font.widthOfTextAtSize(rest, size) > WIDTH) {
      let cut = rest.length - 1;
      while (cut > 1 && font.widthOfTextAtSize(rest.slice(0, cut), size) > WIDTH) cut--;
      lines.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    line = rest;
  }
  if (line) lines.push(line);
  return lines;
}

/** Writes lines top to bottom, opening a page when one is full. */
class Writer {
  private page: PDFPage;
  private y = A4[1] - MARGIN;

  constructor(private readonly pdf: PDFDocument) {
    this.page = pdf.addPage(A4);
  }

  paragraph(font: PDFFont, text: string, size = SIZE): void {
    const lines = wrap(font, drawable(font, text), size);
    for (const line of lines.length ? lines : ['']) {
      if (this.y < MARGIN + LEADING) {
        this.page = this.pdf.addPage(A4);
        this.y = A4[1] - MARGIN;
      }
      this.page.drawText(line, { x: MARGIN, y: this.y, size, font });
      this.y -= size === SIZE ? LEADING : size + 6;
    }
  }

  gap(): void {
    this.y -= LEADING / 2;
  }
}

/**
 * The contract PDF: the template's text with the proposal's data, then the summary every contract
 * carries (terms, CET, schedule, parties). Dated `at`, so the same facts give the same bytes.
 */
export async function renderContractPdf(template: string, facts: ContractFacts, meta: { title: string; at: string }): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const at = new Date(meta.at);
  pdf.setTitle(meta.title);
  pdf.setCreationDate(at);
  pdf.setModificationDate(at);
  pdf.setProducer('credit-analysis-service');
  const fields = contractFields(facts);
  const writer = new Writer(pdf);
  writer.paragraph(bold, meta.title, 14);
  writer.gap();
  for (const paragraph of fillContract(template, fields).split(/\r?\n/)) writer.paragraph(regular, paragraph);
  writer.gap();
  writer.paragraph(bold, 'Resumo da operação', 12);
  for (const [label, value] of contractSummary(fields)) writer.paragraph(regular, `${label}: ${value}`);
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
}

import PDFDocument from 'pdfkit';
import {
  dataSections,
  decisionFields,
  reasonsOf,
  ruleRows,
  scoreFactorRows,
  scoreModelOf,
  sectionLines,
  subjectFields,
  subjectOf,
  SANDBOX_MARK,
  type ExportableReport,
  type RenderContext,
  type RenderedFile,
} from './exportable.ts';
import { formatInstant, formatValue } from './pt-br.ts';

const INK = '#1f2933';
const MUTED = '#616e7c';
const RULE = '#c8cfd6';
const GOOD = '#1e7b34';
const BAD = '#b42318';
const WARN = '#a15c07';
const TONE: Record<string, string> = { APPROVED: GOOD, DENIED: BAD, MANUAL_ANALYSIS: WARN };

const LABEL_WIDTH = 170;
const INDENT = 14;

/**
 * The report as a document for a credit analyst: the decision and its reasons first, then the
 * subject, the policy's rules and every section in Portuguese, with page numbers. Standard fonts
 * (WinAnsi covers Portuguese), so there are no font files to ship.
 */
export async function renderPdf(report: ExportableReport, { generatedAt }: RenderContext): Promise<RenderedFile> {
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 50, left: 50, right: 50, bottom: 60 },
    bufferPages: true,
    info: { Title: `Relatório de análise de crédito ${report.id}`, Author: 'Credit Analysis' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  const bottom = () => doc.page.height - doc.page.margins.bottom;
  const ensureSpace = (height: number) => {
    if (doc.y + height > bottom()) doc.addPage();
  };

  const heading = (title: string, aside?: { text: string; color: string }) => {
    ensureSpace(60);
    doc.moveDown(1);
    const y = doc.y;
    doc.font('Helvetica-Bold').fontSize(13).fillColor(INK).text(title, left, y, { width });
    if (aside)
      doc
        .font('Helvetica-Bold')
        .fontSize(10)
        .fillColor(aside.color)
        .text(aside.text, left, y + 2, { width, align: 'right' });
    const under = doc.y + 2;
    doc
      .moveTo(left, under)
      .lineTo(left + width, under)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    doc.x = left;
    doc.y = under + 6;
  };

  /** A label and its value side by side; the value wraps in its own column. */
  const row = (label: string, value: string, options: { indent?: number; color?: string } = {}) => {
    const x = left + (options.indent ?? 0);
    const labelWidth = LABEL_WIDTH - (options.indent ?? 0);
    const valueWidth = width - LABEL_WIDTH;
    doc.fontSize(9.5);
    const height = Math.max(doc.font('Helvetica-Bold').heightOfString(label, { width: labelWidth }), doc.font('Helvetica').heightOfString(value, { width: valueWidth }));
    ensureSpace(height);
    const y = doc.y;
    doc.font('Helvetica-Bold').fillColor(MUTED).text(label, x, y, { width: labelWidth });
    doc
      .font('Helvetica')
      .fillColor(options.color ?? INK)
      .text(value, left + LABEL_WIDTH, y, { width: valueWidth });
    doc.x = left;
    doc.y = y + height + 3;
  };

  const bullet = (line: string, color = INK) => {
    doc.font('Helvetica').fontSize(10);
    const height = doc.heightOfString(line, { width: width - 14 });
    ensureSpace(height);
    const y = doc.y;
    doc
      .fillColor(color)
      .text('•', left + 2, y)
      .text(line, left + 14, y, { width: width - 14 });
    doc.x = left;
    doc.y = y + height + 3;
  };

  // Title and subject.
  const subject = subjectOf(report);
  doc.font('Helvetica-Bold').fontSize(18).fillColor(INK).text('Relatório de análise de crédito');
  doc
    .font('Helvetica-Bold')
    .fontSize(13)
    .text(subject.name ?? 'Nome não informado pela fonte');
  doc.font('Helvetica').fontSize(10).fillColor(MUTED).text(`${subject.documentLabel} ${subject.document} · Política ${report.policyName} (versão ${report.policyVersion})`);
  doc.moveDown(1);

  // The decision, in a framed block: what the reader came for.
  const tone = TONE[report.status.value] ?? INK;
  const top = doc.y;
  doc.x = left + 16;
  doc.y = top + 10;
  doc.font('Helvetica-Bold').fontSize(9).fillColor(MUTED).text('DECISÃO');
  doc.font('Helvetica-Bold').fontSize(22).fillColor(tone).text(report.status.title);
  doc.moveDown(0.3);
  const model = scoreModelOf(report);
  for (const field of decisionFields(report)) {
    if (field.value.kind === 'empty') continue;
    let value = formatValue(field.value);
    if (field.label === 'Pontuação' && model) value += ` (de ${model.min} a ${model.max}; aprova a partir de ${model.approveFrom}, nega abaixo de ${model.denyBelow})`;
    doc
      .font('Helvetica-Bold')
      .fontSize(10)
      .fillColor(MUTED)
      .text(`${field.label}: `, { continued: true, width: width - 32 })
      .font('Helvetica')
      .fillColor(INK)
      .text(value);
  }
  const end = doc.y + 10;
  doc
    .rect(left, top, width, end - top)
    .lineWidth(1)
    .strokeColor(tone)
    .stroke();
  doc.rect(left, top, 5, end - top).fill(tone);
  doc.x = left;
  doc.y = end;

  heading('Motivos da decisão');
  const reasons = reasonsOf(report);
  if (!reasons.length) bullet('A política ainda não decidiu este relatório.', MUTED);
  for (const reason of reasons) bullet(reason);

  heading('Identificação');
  for (const field of subjectFields(report)) if (field.value.kind !== 'empty') row(field.label, formatValue(field.value));

  const rules = ruleRows(report);
  if (rules.length) {
    heading('Regras da política');
    for (const rule of rules) {
      row(rule.rule, rule.result, { color: rule.passed === true ? GOOD : rule.passed === false ? BAD : MUTED });
      row('', `Grupo: ${rule.group} · Se não atendida: ${rule.onFail}${rule.facts ? ` · Dados: ${rule.facts}` : ''}`, { color: MUTED });
    }
  }

  const factors = scoreFactorRows(report);
  if (factors.length) {
    heading('Fatores da pontuação');
    for (const factor of factors) row(factor.label, `${factor.points > 0 ? '+' : ''}${factor.points} pontos · ${factor.applied}`);
  }

  for (const section of dataSections(report)) {
    heading(section.title, { text: section.statusTitle, color: section.status === 'DONE' ? GOOD : section.status === 'ERROR' ? BAD : MUTED });
    for (const error of section.errors) bullet(`${error.title}: ${error.message}`, BAD);
    const lines = sectionLines(section, report.documentType);
    if (!lines.length && !section.errors.length) bullet('Sem dados.', MUTED);
    for (const line of lines) {
      const indent = (line.path.length - 1) * INDENT;
      const label = line.path.at(-1) ?? '';
      if (line.value) row(label, formatValue(line.value), { indent });
      else {
        ensureSpace(16);
        doc
          .font('Helvetica-Bold')
          .fontSize(9.5)
          .fillColor(INK)
          .text(label, left + indent, doc.y, { width: width - indent });
        doc.x = left;
        doc.y += 2;
      }
    }
  }

  // Footers last, when the page count is known; the bottom margin is lifted so they do not start a page.
  const pages = doc.bufferedPageRange();
  for (let i = pages.start; i < pages.start + pages.count; i++) {
    doc.switchToPage(i);
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    const y = doc.page.height - 38;
    doc
      .moveTo(left, y - 6)
      .lineTo(left + width, y - 6)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
    doc.font('Helvetica').fontSize(8).fillColor(MUTED);
    doc.text(`Gerado em ${formatInstant(generatedAt)} (horário de Brasília) · Relatório ${report.id}`, left, y, { width, lineBreak: false });
    doc.text(`Página ${i - pages.start + 1} de ${pages.count}`, left, y, { width, align: 'right', lineBreak: false });
    // In the top margin, above whatever the page holds: no page of a sandbox report passes for a real one.
    if (report.sandbox) doc.font('Helvetica-Bold').fontSize(11).fillColor(BAD).text(SANDBOX_MARK, left, 22, { width, align: 'center', lineBreak: false });
    doc.page.margins.bottom = margin;
  }
  doc.end();
  await finished;
  return { bytes: Buffer.concat(chunks), contentType: 'application/pdf', extension: 'pdf' };
}

import PDFDocument from 'pdfkit';
import { flatten, ruleLines, summaryLines, type ExportableReport, type RenderedFile } from './exportable.ts';

/** The report as a PDF (pdfkit, standard fonts: no font files to ship). */
export async function renderPdf(report: ExportableReport): Promise<RenderedFile> {
  const doc = new PDFDocument({ size: 'A4', margin: 48, info: { Title: `Relatório de crédito ${report.id}`, Author: 'Credit Analysis' } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const finished = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });

  doc.font('Helvetica-Bold').fontSize(18).text('Relatório de crédito');
  doc.moveDown(0.5);
  for (const [label, value] of summaryLines(report)) {
    doc.font('Helvetica-Bold').fontSize(10).text(`${label}: `, { continued: true }).font('Helvetica').text(value);
  }

  const rules = ruleLines(report);
  if (rules.length) {
    doc.moveDown().font('Helvetica-Bold').fontSize(14).text('Regras da política');
    for (const r of rules) {
      doc.font('Helvetica-Bold').fontSize(10).text(`${r.group} / ${r.rule}: ${r.result}`);
      doc.font('Helvetica').fontSize(9).text(`Se não atendida: ${r.onFail}. Fatos: ${r.facts || '-'}`);
    }
  }

  for (const section of report.sections) {
    if (section.type === 'CREDIT_POLICY') continue;
    doc.moveDown().font('Helvetica-Bold').fontSize(13).text(`${section.title} (${section.status})`);
    for (const error of section.errors) doc.font('Helvetica').fontSize(9).fillColor('#a00').text(`${error.code}: ${error.message}`).fillColor('black');
    for (const [field, value] of section.details ? flatten(section.details) : []) {
      doc.font('Helvetica').fontSize(9).text(`${field}: ${value}`);
    }
  }
  doc.end();
  await finished;
  return { bytes: Buffer.concat(chunks), contentType: 'application/pdf', extension: 'pdf' };
}

import ExcelJS from 'exceljs';
import { flatten, ruleLines, summaryLines, type ExportableReport, type RenderedFile } from './exportable.ts';

/** The report as a workbook (exceljs): a summary, the policy's rules, and every section's data. */
export async function renderXlsx(report: ExportableReport): Promise<RenderedFile> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Credit Analysis';

  const summary = workbook.addWorksheet('Resumo');
  summary.columns = [
    { header: 'Campo', key: 'field', width: 36 },
    { header: 'Valor', key: 'value', width: 80 },
  ];
  for (const [field, value] of summaryLines(report)) summary.addRow({ field, value });

  const rules = workbook.addWorksheet('Regras');
  rules.columns = [
    { header: 'Grupo', key: 'group', width: 24 },
    { header: 'Regra', key: 'rule', width: 36 },
    { header: 'Resultado', key: 'result', width: 40 },
    { header: 'Se não atendida', key: 'onFail', width: 18 },
    { header: 'Fatos', key: 'facts', width: 60 },
  ];
  for (const line of ruleLines(report)) rules.addRow(line);

  const sections = workbook.addWorksheet('Seções');
  sections.columns = [
    { header: 'Seção', key: 'section', width: 28 },
    { header: 'Status', key: 'status', width: 10 },
    { header: 'Campo', key: 'field', width: 40 },
    { header: 'Valor', key: 'value', width: 60 },
  ];
  for (const section of report.sections) {
    if (section.type === 'CREDIT_POLICY') continue;
    for (const error of section.errors) sections.addRow({ section: section.title, status: section.status, field: error.code, value: error.message });
    for (const [field, value] of section.details ? flatten(section.details) : []) {
      sections.addRow({ section: section.title, status: section.status, field, value });
    }
  }
  for (const sheet of [summary, rules, sections]) sheet.getRow(1).font = { bold: true };

  const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
  return { bytes, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' };
}

import ExcelJS from 'exceljs';
import { dataSections, decisionFields, reasonsOf, ruleRows, sectionLines, subjectFields, SANDBOX_MARK, type ExportableReport, type RenderContext, type RenderedFile } from './exportable.ts';
import { saoPauloClock, text, type Value } from './pt-br.ts';

/** Excel formats that print as a Brazilian reader writes, whatever the reader's locale. */
const FORMATS = {
  money: '"R$" #,##0.00',
  integer: '0',
  number: '#,##0.00',
  day: 'dd/mm/yyyy',
  month: 'mm/yyyy',
  instant: 'dd/mm/yyyy hh:mm',
} as const;

/**
 * A cell's value and format. Excel dates have no zone: an instant is written as the time a clock
 * in São Paulo showed, which is what the PDF prints too.
 */
function cellOf(value: Value): { value: ExcelJS.CellValue; numFmt?: string } {
  switch (value.kind) {
    case 'text':
      return { value: value.text };
    case 'integer':
      return { value: value.value, numFmt: FORMATS.integer };
    case 'number':
      return { value: value.value, numFmt: FORMATS.number };
    case 'money':
      return { value: value.cents / 100, numFmt: FORMATS.money };
    case 'day':
      return { value: new Date(Date.UTC(value.year, value.month - 1, value.day)), numFmt: FORMATS.day };
    case 'month':
      return { value: new Date(Date.UTC(value.year, value.month - 1, 1)), numFmt: FORMATS.month };
    case 'instant': {
      const c = saoPauloClock(value.at);
      return { value: new Date(Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second)), numFmt: FORMATS.instant };
    }
    case 'boolean':
      return { value: value.value };
    case 'empty':
      return { value: null };
  }
}

type Column = { header: string; width: number };

/**
 * A sheet with its header row. A sandbox report's sheets open with SANDBOX_MARK in a red first
 * row above the headers (frozen with them, so it stays in view) and in the printed page header.
 */
function sheet(workbook: ExcelJS.Workbook, name: string, columns: Column[], sandbox: boolean): ExcelJS.Worksheet {
  const headerRow = sandbox ? 2 : 1;
  const worksheet = workbook.addWorksheet(name, { views: [{ state: 'frozen', ySplit: headerRow }] });
  worksheet.columns = columns.map((c) => ({ header: c.header, width: c.width }));
  if (sandbox) {
    worksheet.spliceRows(1, 0, [SANDBOX_MARK]);
    worksheet.mergeCells(1, 1, 1, columns.length);
    const mark = worksheet.getCell(1, 1);
    mark.font = { bold: true, color: { argb: 'FFFFFFFF' } };
    mark.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFB42318' } };
    worksheet.headerFooter.oddHeader = `&C&"-,Bold"${SANDBOX_MARK}`;
  }
  worksheet.getRow(headerRow).font = { bold: true };
  worksheet.autoFilter = { from: { row: headerRow, column: 1 }, to: { row: headerRow, column: columns.length } };
  return worksheet;
}

/** A row of typed values; long texts wrap instead of running over the next column. */
function addRow(worksheet: ExcelJS.Worksheet, values: Value[]): void {
  const row = worksheet.addRow(values.map(() => null));
  values.forEach((value, i) => {
    const cell = row.getCell(i + 1);
    const { value: content, numFmt } = cellOf(value);
    cell.value = content;
    if (numFmt) cell.numFmt = numFmt;
    cell.alignment = { vertical: 'top', wrapText: value.kind === 'text' };
  });
}

/** The report as a workbook: the decision and subject, the policy's rules, every section's data, all typed. */
export async function renderXlsx(report: ExportableReport, { generatedAt }: RenderContext): Promise<RenderedFile> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Credit Analysis';
  workbook.created = generatedAt;

  const summary = sheet(
    workbook,
    'Resumo',
    [
      { header: 'Campo', width: 34 },
      { header: 'Valor', width: 90 },
    ],
    report.sandbox,
  );
  const reasons = reasonsOf(report).map((reason) => ({ label: 'Motivo', value: text(reason) }));
  for (const field of [{ label: 'Decisão', value: text(report.status.title) }, ...decisionFields(report), ...reasons, ...subjectFields(report)]) {
    addRow(summary, [text(field.label), field.value]);
  }

  const rules = sheet(
    workbook,
    'Regras',
    [
      { header: 'Grupo', width: 24 },
      { header: 'Regra', width: 36 },
      { header: 'Resultado', width: 30 },
      { header: 'Se não atendida', width: 18 },
      { header: 'Dados lidos', width: 70 },
    ],
    report.sandbox,
  );
  for (const rule of ruleRows(report)) addRow(rules, [rule.group, rule.rule, rule.result, rule.onFail, rule.facts].map(text));

  const sections = sheet(
    workbook,
    'Seções',
    [
      { header: 'Seção', width: 30 },
      { header: 'Situação', width: 14 },
      { header: 'Campo', width: 48 },
      { header: 'Valor', width: 60 },
    ],
    report.sandbox,
  );
  for (const section of dataSections(report)) {
    const head = [text(section.title), text(section.statusTitle)];
    for (const error of section.errors) addRow(sections, [...head, text(`Erro: ${error.title}`), text(error.message)]);
    // Headings carry no value: each line's full path already says where it sits.
    for (const line of sectionLines(section, report.documentType)) {
      if (line.value) addRow(sections, [...head, text(line.path.join(' › ')), line.value]);
    }
  }

  const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
  return { bytes, contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' };
}

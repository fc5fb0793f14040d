import ExcelJS from 'exceljs';
import { EXPORT_FIELDS, defuseFormula, type ExportRow } from '../../domain/dashboard-export/rows.ts';

/**
 * The rows as an XLSX workbook (one sheet, `Propostas`): the CSV's columns, with instants as
 * date cells (UTC, shown as yyyy-mm-dd hh:mm:ss) and amounts in cents as numbers, so a
 * spreadsheet sorts and sums them without conversion. Texts are plain strings, never formulas.
 */
export async function toXlsx(rows: readonly ExportRow[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Propostas', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = EXPORT_FIELDS.map(({ field, kind }) => ({
    header: field,
    key: field,
    width: kind === 'instant' ? 20 : kind === 'cents' ? 14 : 18,
    ...(kind === 'instant' && { style: { numFmt: 'yyyy-mm-dd hh:mm:ss' } }),
  }));
  for (const row of rows) {
    sheet.addRow(
      EXPORT_FIELDS.map(({ field, kind }) => {
        const value = row[field];
        if (value === null) return null;
        if (kind === 'instant') return new Date(value as string);
        return typeof value === 'string' ? defuseFormula(value) : value;
      }),
    );
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

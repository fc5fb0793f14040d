/** Spec Limits: an export holds at most 5000 rows, with `truncated` when more matched. */
export const MAX_EXPORT_ROWS = 5000;

/** One proposal of the management export (spec: fields known from the export row). */
export interface ExportRow {
  id: string;
  createdAt: string;
  document: string;
  name: string;
  entityType: string;
  origin: string;
  correspondentId: string | null;
  agentId: string | null;
  productKey: string;
  productName: string;
  portfolioName: string | null;
  status: string;
  requestedCents: number | null;
  firmCents: number | null;
  chosenCents: number | null;
  decision: 'APPROVED' | 'REJECTED' | null;
  rejectionStep: string | null;
  analyzedAt: string | null;
  preApprovedAt: string | null;
  firmOfferAt: string | null;
  chosenAt: string | null;
  issuedAt: string | null;
  statusChangedAt: string;
}

export type FieldKind = 'text' | 'cents' | 'instant';

/** The columns of the CSV and XLSX files: the JSON row's fields, in its order, named alike. */
export const EXPORT_FIELDS: ReadonlyArray<{ field: keyof ExportRow; kind: FieldKind }> = [
  { field: 'id', kind: 'text' },
  { field: 'createdAt', kind: 'instant' },
  { field: 'document', kind: 'text' },
  { field: 'name', kind: 'text' },
  { field: 'entityType', kind: 'text' },
  { field: 'origin', kind: 'text' },
  { field: 'correspondentId', kind: 'text' },
  { field: 'agentId', kind: 'text' },
  { field: 'productKey', kind: 'text' },
  { field: 'productName', kind: 'text' },
  { field: 'portfolioName', kind: 'text' },
  { field: 'status', kind: 'text' },
  { field: 'requestedCents', kind: 'cents' },
  { field: 'firmCents', kind: 'cents' },
  { field: 'chosenCents', kind: 'cents' },
  { field: 'decision', kind: 'text' },
  { field: 'rejectionStep', kind: 'text' },
  { field: 'analyzedAt', kind: 'instant' },
  { field: 'preApprovedAt', kind: 'instant' },
  { field: 'firmOfferAt', kind: 'instant' },
  { field: 'chosenAt', kind: 'instant' },
  { field: 'issuedAt', kind: 'instant' },
  { field: 'statusChangedAt', kind: 'instant' },
];

/**
 * A text a spreadsheet would run as a formula (=, +, -, @, tab, carriage return first) starts
 * with an apostrophe instead: names come from public forms, and a cell must never execute.
 */
export const defuseFormula = (text: string) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);

const csvCell = (value: string | number | null) => {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = defuseFormula(value);
  return /[;"\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/**
 * The rows as CSV for spreadsheets set to Portuguese: `;` between fields (the comma is their
 * decimal mark), CRLF between lines (RFC 4180), a UTF-8 byte order mark so accents open right,
 * a header of the field names, amounts in cents and instants in ISO 8601 UTC as in the JSON.
 */
export function toCsv(rows: readonly ExportRow[]): string {
  const lines = [EXPORT_FIELDS.map(({ field }) => field).join(';')];
  for (const row of rows) lines.push(EXPORT_FIELDS.map(({ field }) => csvCell(row[field])).join(';'));
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

import Type from 'typebox';
import { exportDashboard } from '../../application/dashboard-export/export.ts';
import { toCsv } from '../../domain/dashboard-export/rows.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { DashboardFilterQuery, dashboardFiltersOf } from '../dashboard/filters.ts';
import { route, type RouteTable } from '../route.ts';
import { ExportRowsSchema, FORMAT_MESSAGE } from './schemas.ts';

const CSV = 'text/csv';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
type Format = 'json' | 'csv' | 'xlsx';

/** `format` wins; else the Accept header's first of CSV or XLSX; else JSON. */
function formatOf(query: string | undefined, accept: string): Format {
  if (query !== undefined) {
    if (query === 'json' || query === 'csv' || query === 'xlsx') return query;
    throw new HttpError(400, FORMAT_MESSAGE);
  }
  const types = accept.split(',').map((part) => part.split(';')[0]!.trim().toLowerCase());
  const first = types.find((type) => type === CSV || type === XLSX);
  return first === CSV ? 'csv' : first === XLSX ? 'xlsx' : 'json';
}

/** The file's name: the period in it, so two downloads of different periods do not overwrite each other. */
const fileName = (from: string, to: string, extension: string) => `painel-propostas_${from.slice(0, 10)}_${to.slice(0, 10)}.${extension}`;

export const dashboardExportRoutes: RouteTable = {
  module: 'dashboard-export',
  description: 'The management dashboard export: its rows as JSON, CSV or XLSX',
  routes: [
    route({
      method: 'get',
      path: '/v1/proposals/dashboard/rows',
      summary: 'The proposals of the dashboard filters, newest first, up to 5000 (JSON, CSV or XLSX)',
      description:
        'Same filters and 400 texts as GET /v1/proposals/dashboard (compare, dim and sla do not change rows). One export per organization ' +
        'at a time: an identical one in progress is shared, another with other filters answers 429. `format=csv|xlsx` (or Accept ' +
        'text/csv or the XLSX type) answers a file: CSV with `;` separators, CRLF and a UTF-8 BOM; XLSX with one sheet. The file ' +
        'carries the rows only; `X-Export-Truncated` and `X-Export-Max-Rows` say whether the ceiling cut them.',
      gate: Gates.proposalsOperate,
      query: Type.Object({ ...DashboardFilterQuery.properties, format: Type.Optional(Type.String({ description: 'json (default), csv or xlsx; overrides Accept' })) }),
      responses: { 200: ExportRowsSchema },
      files: [CSV, XLSX],
      errors: [502],
      async handle({ app, principal, query, ctx }) {
        const filters = dashboardFiltersOf(query, app.clock.now());
        const format = formatOf(query.format, ctx.get('accept'));
        const result = await exportDashboard(app, principal.organizationId, filters);
        if (format === 'json') return result;
        const headers = { 'X-Export-Truncated': String(result.truncated), 'X-Export-Max-Rows': String(result.maxRows) };
        if (format === 'csv') {
          const name = fileName(result.from, result.to, 'csv');
          return {
            status: 200,
            raw: Buffer.from(toCsv(result.rows), 'utf8'),
            headers: { ...headers, 'Content-Type': `${CSV}; charset=utf-8`, 'Content-Disposition': `attachment; filename="${name}"` },
          };
        }
        // exceljs weighs tens of MB: loaded on the first XLSX download only.
        const { toXlsx } = await import('../../application/dashboard-export/xlsx.ts');
        const name = fileName(result.from, result.to, 'xlsx');
        return { status: 200, raw: await toXlsx(result.rows), headers: { ...headers, 'Content-Type': XLSX, 'Content-Disposition': `attachment; filename="${name}"` } };
      },
    }),
  ],
};

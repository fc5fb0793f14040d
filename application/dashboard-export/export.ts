import { MAX_EXPORT_ROWS, type ExportRow } from '../../domain/dashboard-export/rows.ts';
import { filtersKey, type DashboardFilters } from '../../domain/dashboard/filters.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { exportRows } from '../../projections/dashboard-export/queries.ts';
import type { AppContext } from '../context.ts';
import { exportOnce } from './single-flight.ts';

export interface DashboardExport {
  from: string;
  to: string;
  rows: ExportRow[];
  truncated: boolean;
  maxRows: number;
}

/**
 * The export rows of the filters (GET /v1/proposals/dashboard/rows), one export per organization
 * at a time (single-flight.ts). The query runs under its own statement timeout: past it, or on
 * any failure of the database, the caller gets 502 `Não foi possível exportar o painel gerencial.`
 * rather than a hang or a 500 (taking or freeing the organization's slot included).
 */
export async function exportDashboard(app: AppContext, organizationId: string, filters: DashboardFilters): Promise<DashboardExport> {
  try {
    return await exportOnce(app.db, organizationId, filtersKey(filters), async () => {
      const { rows, truncated } = await app.db.transaction(
        async (trx) => {
          await trx.raw(`set local statement_timeout = ${Math.trunc(app.config.DASHBOARD_EXPORT_TIMEOUT_MS)}`);
          return exportRows(trx, organizationId, filters, MAX_EXPORT_ROWS);
        },
        { readOnly: true },
      );
      return { from: filters.from, to: filters.to, rows, truncated, maxRows: MAX_EXPORT_ROWS };
    });
  } catch (error) {
    // The 429 of the single flight stays; the query, the lease's statements, anything else is 502.
    if (error instanceof DomainError) throw error;
    app.log.error({ err: error, organizationId }, 'dashboard export failed');
    throw new DomainError('upstream', Messages.dashboardExportFailed);
  }
}

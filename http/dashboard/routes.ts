import { loadDashboard } from '../../application/dashboard/dashboard.ts';
import { Gates } from '../gates.ts';
import { DashboardQuery, dashboardQueryOf } from './filters.ts';
import { route, type RouteTable } from '../route.ts';
import { DashboardSchema } from './schemas.ts';

/** A query sla the parser reads (an empty one reads as none). */
const givesSla = (sla: string | string[] | undefined) => sla !== undefined && [sla].flat().join(',').trim() !== '';

/**
 * The management dashboard. Mounted before the proposals table (http/modules.ts): its path would
 * otherwise reach GET /v1/proposals/:id and answer 400 for the id `dashboard`.
 */
export const dashboardRoutes: RouteTable = {
  module: 'dashboard',
  description: 'The management dashboard of proposals (docs/dashboard.md)',
  routes: [
    route({
      method: 'get',
      path: '/v1/proposals/dashboard',
      summary: 'Indicators, series, funnel, breakdown, mix, cycle, offers, rejections and aging of the proposals created in a period',
      description:
        'Period by creation date: `from` inclusive (default 30 days before `to`), `to` exclusive (default the end of today in Brasília), at most 366 days. ' +
        'The comparison period is as long and ends at `from`. Filters are comma separated lists (2000 characters each). ' +
        "`sla` default: the organization's proposal settings `dashboardSla`. Results are kept 60 seconds per process.",
      gate: Gates.proposalsOperate,
      query: DashboardQuery,
      responses: { 200: DashboardSchema },
      errors: [502],
      async handle({ app, principal, query }) {
        const { sla, ...parsed } = dashboardQueryOf(query, app.clock.now());
        return loadDashboard(app, principal.organizationId, { ...parsed, sla: givesSla(query.sla) ? sla : null });
      },
    }),
  ],
};

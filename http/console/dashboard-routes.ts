import { loadDashboard } from '../../application/dashboard/dashboard.ts';
import { Gates } from '../gates.ts';
import { DashboardQuery, dashboardQueryOf } from '../dashboard/filters.ts';
import type { RouteSpec } from '../route.ts';
import { validateText } from '../validation.ts';
import { dashboardPage } from './dashboard-html.ts';
import { consoleRoute, page } from './signed-in.ts';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

export const dashboardPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: '/console/painel',
    summary: "The proposals' management dashboard (HTML): the indicators against the previous period, and charts (`de`, `ate`: days, Brasília time)",
    gate: Gates.proposalsOperate,
    errors: [400],
    async handle(input) {
      const text = (name: string) => (typeof input.ctx.query[name] === 'string' && DAY.test(input.ctx.query[name] as string) ? (input.ctx.query[name] as string) : '');
      const period = { de: text('de'), ate: text('ate') };
      const query = validateText(DashboardQuery, { ...(period.de && { from: period.de }), ...(period.ate && { to: period.ate }) });
      const { sla: _sla, ...parsed } = dashboardQueryOf(query, input.app.clock.now());
      const dashboard = await loadDashboard(input.app, input.principal.organizationId, { ...parsed, sla: null });
      return page(200, 'Painel de propostas', input, dashboardPage(dashboard, period), ['chart.umd.min.js', 'painel.js']);
    },
  }),
];

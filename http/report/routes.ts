import type { RouteTable } from '../route.ts';
import { reportAnalysisRoutes } from './analysis-routes.ts';
import { reportExportRoutes } from './export-routes.ts';
import { reportReadRoutes } from './read-routes.ts';

export const reportRoutes: RouteTable = {
  module: 'report',
  description: 'Credit reports: request (asynchronous), read, sections, decisions, manual analysis, exports',
  routes: [...reportReadRoutes, ...reportAnalysisRoutes, ...reportExportRoutes],
};

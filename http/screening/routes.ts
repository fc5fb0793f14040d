import { screeningListStates } from '../../application/screening/lists.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { ListsReply } from './schemas.ts';

export const screeningRoutes: RouteTable = {
  module: 'screening',
  description: 'The sanctions and PEP lists reports are screened against (docs/reports.md, Screening)',
  routes: [
    route({
      method: 'get',
      path: '/v1/screening/lists',
      summary: 'Every screening list: its source, the version in use (publication date, SHA-256, entries, load time) and its last failure',
      // Whoever reads reports reads what their SANCTIONS and PEP flag were screened against.
      gate: Gates.reportsRead,
      responses: { 200: ListsReply },
      async handle({ app }) {
        return { nameThreshold: app.config.SCREENING_NAME_THRESHOLD, lists: await screeningListStates(app) };
      },
    }),
  ],
};

import { screeningListStates } from '../../application/screening/lists.ts';
import { Gates } from '../gates.ts';
import type { RouteSpec } from '../route.ts';
import { screeningListsPage } from './screening-html.ts';
import { consoleRoute, page } from './signed-in.ts';

export const screeningPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: '/console/listas-de-triagem',
    summary: 'The sanctions and PEP lists reports are screened against (HTML): the version in use of each, its SHA-256 and its last failure, as GET /v1/screening/lists',
    // The API route's gate: whoever reads reports reads what they were screened against.
    gate: Gates.reportsRead,
    handle: async (input) => page(200, 'Listas de sanções e PEP', input, screeningListsPage(input.app.config.SCREENING_NAME_THRESHOLD, await screeningListStates(input.app))),
  }),
];

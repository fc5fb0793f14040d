import Type from 'typebox';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { listProposals } from '../../projections/proposal/queries.ts';
import { Gates } from '../gates.ts';
import { presentedProposal } from '../proposal/routes.ts';
import { ObjectIdSchema, type RouteSpec } from '../route.ts';
import { proposalListPage, proposalPage, STATUS_LABELS } from './proposal-html.ts';
import { consoleRoute, page } from './signed-in.ts';

export const proposalPageRoutes: RouteSpec[] = [
  consoleRoute({
    method: 'get',
    path: '/console/propostas',
    summary: "The organization's proposals (HTML), newest first: search by name or document, filter by status",
    gate: Gates.proposalsOperate,
    reads: [PROPOSAL_PROJECTION],
    async handle(input) {
      const text = (name: string) => (typeof input.ctx.query[name] === 'string' ? (input.ctx.query[name] as string).slice(0, 200) : '');
      const filter = { busca: text('busca'), status: Object.hasOwn(STATUS_LABELS, text('status')) ? text('status') : '' };
      const { total, items } = await listProposals(input.app.db, input.principal.organizationId, {
        page: 1,
        pageSize: 50,
        search: filter.busca || undefined,
        status: filter.status ? [filter.status] : undefined,
      });
      return page(200, 'Propostas', input, proposalListPage(items, total, filter));
    },
  }),
  consoleRoute({
    method: 'get',
    path: '/console/propostas/:id',
    summary: 'A proposal (HTML): status, request, offers by round with the choice, its analyses and its history',
    gate: Gates.proposalsOperate,
    params: Type.Object({ id: ObjectIdSchema() }),
    errors: [404],
    async handle(input) {
      const proposal = await presentedProposal(input.app, input.principal.organizationId, input.params.id!);
      return page(200, `Proposta de ${proposal.name}`, input, proposalPage(proposal));
    },
  }),
];

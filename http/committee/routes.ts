import Type from 'typebox';
import { conveneOnRequest } from '../../application/committee/commands.ts';
import { CommitteeMessages } from '../../domain/committee/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { latestDeliberation, startedView } from '../../projections/committee/queries.ts';
import type { DeliberationStarted } from '../../domain/committee/events.ts';
import { Gates, type Gate } from '../gates.ts';
import { ObjectIdSchema, route, type RouteTable } from '../route.ts';
import { DeliberationSchema, ReportIdParams } from './schemas.ts';

/** Convening spends model calls: the committee module and a permission to generate or analyze reports. */
const conveneGate: Gate = {
  modules: ['committee'],
  permissions: ['can-generate-report', 'can-analyze-report', 'can-reanalyze-report'],
  moduleDenied: { status: 403, message: CommitteeMessages.moduleDisabled },
};

export const committeeRoutes: RouteTable = {
  module: 'committee',
  description: 'The AI credit committee: seven specialists and a chair deliberate on a finalized report (docs/committee.md).',
  routes: [
    route({
      method: 'post',
      path: '/report/:id/committee',
      summary: 'Convene the committee on a report (MANUAL, or RERUN when it deliberated before)',
      description:
        'Starts a new deliberation and answers 202 with it, RUNNING; read the result at GET /committee/deliberations/{reportId} or wait for COMMITTEE_FINISHED. ' +
        `403 \`${CommitteeMessages.moduleDisabled}\`; 404 \`${Messages.reportNotFound}\`; 409 \`${CommitteeMessages.reportNotFinalized}\` or \`${CommitteeMessages.alreadyRunning}\`.`,
      gate: conveneGate,
      params: Type.Object({ id: ObjectIdSchema() }),
      responses: { 202: DeliberationSchema },
      errors: [404, 409],
      async handle({ app, principal, params }) {
        const { deliberationId, events } = await conveneOnRequest(app, principal, params.id);
        const shown = await latestDeliberation(app.db, principal.organizationId, params.id);
        const started = events.find((e): e is DeliberationStarted => e.type === 'DeliberationStarted')!;
        return { status: 202, body: shown?.id === deliberationId ? shown : startedView(started.data) };
      },
    }),
    route({
      method: 'get',
      path: '/committee/deliberations/:reportId',
      summary: "The report's latest committee deliberation",
      description: `A rerun makes a newer one, which is the one returned. 404 \`${Messages.committeeNotFound}\` (also for another organization's report).`,
      gate: Gates.reportsRead,
      params: ReportIdParams,
      responses: { 200: DeliberationSchema },
      errors: [404],
      async handle({ app, principal, params }) {
        const found = await latestDeliberation(app.db, principal.organizationId, params.reportId);
        if (!found) throw new DomainError('not_found', Messages.committeeNotFound);
        return found;
      },
    }),
  ],
};

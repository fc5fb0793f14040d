import Type from 'typebox';
import type { AppContext } from '../../application/context.ts';
import { requestReport } from '../../application/report/commands.ts';
import { reportStream } from '../../domain/report/events.ts';
import { ALL_SECTION_TYPES } from '../../domain/report/sections.ts';
import { statusObject } from '../../domain/report/statuses.ts';
import type { DocumentType } from '../../domain/shared/document.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { parkedEventsOf } from '../../platform/projections/parking.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { findReport, findSection, listDecisions } from '../../projections/report/queries.ts';
import { latestDeliberation } from '../../projections/committee/queries.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { ObjectIdSchema, route, type RouteSpec } from '../route.ts';
import { presentDecision, presentReport, presentSectionDetail } from './present.ts';
import { CreatedReportSchema, CreateReportBody, DecisionSchema, ReportParams, ReportQuery, ReportSchema, SectionDetailSchema, SectionTypeParams } from './schemas.ts';

function sectionTypesOf(text: string | undefined): Set<string> | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  const types = text
    .split(',')
    .map((t) => t.trim().toUpperCase())
    .filter(Boolean);
  const unknown = types.filter((t) => !(ALL_SECTION_TYPES as string[]).includes(t));
  if (unknown.length) throw new HttpError(400, `tabType must be one of the following values: ${ALL_SECTION_TYPES.join(', ')}`);
  return new Set(types);
}

/**
 * Read-your-writes for creation, paid only by a read that needs it: a report the projection does
 * not show yet but the store has (created a moment ago) is read once the projection has caught up
 * with its stream. POST /v2/report then replies without waiting, which is what lets creation keep
 * up with hundreds of reports a second.
 */
async function findReportReadingOwnWrites(app: AppContext, organizationId: string, reportId: string) {
  const found = await findReport(app.db, organizationId, reportId);
  if (found) return found;
  const events = await app.store.readStream(reportStream(reportId));
  if (!events.length || events[0]!.data.organizationId !== organizationId) return null;
  await app.readYourWrites([REPORT_PROJECTION], events[events.length - 1]!.position);
  const report = await findReport(app.db, organizationId, reportId);
  // In the store but parked by the projection: a failed state the caller can act on, not a 404.
  if (!report && (await parkedEventsOf(app.db, reportStream(reportId))).length) throw new DomainError('conflict', Messages.reportNotProcessed);
  return report;
}

/** GET /v2/report/{id}'s reply (the web console shows the same); 404 when the organization has no such report. */
export async function readReport(app: AppContext, organizationId: string, reportId: string, options: { details?: boolean; types?: ReadonlySet<string> } = {}) {
  const found = await findReportReadingOwnWrites(app, organizationId, reportId);
  if (!found) throw new DomainError('not_found', Messages.reportNotFound);
  const committee = await latestDeliberation(app.db, organizationId, reportId);
  return presentReport(found, { details: options.details ?? true, types: options.types, config: app.config, now: app.clock.now(), committee });
}

export const reportReadRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/v2/report',
    summary: 'Request a report (asynchronous)',
    description:
      'Replies at once with the report id, status PENDING and policyStatus PENDING; sources are queried and the policy applied in the background. ' +
      '400 `Documento inválido.` (check digits), `Tipo de documento inválido.` (length of the other type), `policyId inválido.`; ' +
      '404 `Política não encontrada.`; 409 archived policy; 422 policy of the other document type.',
    gate: Gates.reportCreate,
    body: CreateReportBody,
    responses: { 200: CreatedReportSchema },
    errors: [404, 422],
    async handle({ app, principal, body }) {
      const { events } = await requestReport(app, principal, {
        document: body.document,
        type: body.type.toLowerCase() as DocumentType,
        policyId: body.policyId,
        externalId: body.externalId ?? null,
      });
      // No wait for the projection here: GET /v2/report waits when it does not find the report yet.
      const d = (events[0] as Extract<(typeof events)[number], { type: 'ReportRequested' }>).data;
      return {
        id: d.reportId,
        status: statusObject(d.status),
        policyStatus: d.policyStatus,
        policyId: d.policyId,
        policyVersion: d.policyVersion,
        policyName: d.policyName,
        document: d.document,
        type: d.type,
        externalId: d.externalId,
        createdAt: d.reportCreatedAt,
        updatedAt: d.reportCreatedAt,
      };
    },
  }),
  route({
    method: 'get',
    path: '/v2/report/:id',
    summary: 'Read a report',
    description:
      'tabType keeps only sections of the named type(s); details=false leaves sectionDetails out. 404 `Report not found`; ' +
      '409 `O relatório não pôde ser processado...` when the report is in the store but its read model could not be built (a parked event).',
    gate: Gates.reportsRead,
    params: ReportParams,
    query: ReportQuery,
    responses: { 200: ReportSchema },
    errors: [409],
    reads: [REPORT_PROJECTION],
    async handle({ app, principal, params, query }) {
      return readReport(app, principal.organizationId, params.id, { details: query.details, types: sectionTypesOf(query.tabType) });
    },
  }),
  route({
    method: 'get',
    path: '/report/section/:id',
    summary: 'Read one section by its id',
    gate: Gates.reportsRead,
    params: Type.Object({ id: ObjectIdSchema() }),
    responses: { 200: SectionDetailSchema },
    reads: [REPORT_PROJECTION],
    async handle({ app, principal, params }) {
      const found = await findSection(app.db, principal.organizationId, { id: params.id });
      if (!found) throw new DomainError('not_found', Messages.sectionNotFound);
      return presentSectionDetail(found.report, found.section);
    },
  }),
  route({
    method: 'get',
    path: '/report/:id/section/:sectionType',
    summary: 'Read one section of a report by its type',
    gate: Gates.reportsRead,
    params: SectionTypeParams,
    responses: { 200: SectionDetailSchema },
    reads: [REPORT_PROJECTION],
    async handle({ app, principal, params }) {
      const type = params.sectionType.toUpperCase();
      if (!(ALL_SECTION_TYPES as string[]).includes(type)) {
        throw new HttpError(400, `sectionType must be one of the following values: ${ALL_SECTION_TYPES.join(', ')}`);
      }
      const found = await findSection(app.db, principal.organizationId, { reportId: params.id, type });
      if (found) return presentSectionDetail(found.report, found.section);
      const report = await findReport(app.db, principal.organizationId, params.id);
      throw new DomainError('not_found', report ? Messages.sectionNotFound : Messages.reportNotFound);
    },
  }),
  route({
    method: 'get',
    path: '/report/:id/decisions',
    summary: "The report's decisions, oldest first: the policy's, then each manual analysis",
    gate: Gates.reportsRead,
    params: ReportParams,
    responses: { 200: Type.Array(DecisionSchema) },
    reads: [REPORT_PROJECTION],
    async handle({ app, principal, params }) {
      const decisions = await listDecisions(app.db, principal.organizationId, params.id);
      if (!decisions.length && !(await findReport(app.db, principal.organizationId, params.id))) {
        throw new DomainError('not_found', Messages.reportNotFound);
      }
      return decisions.map(presentDecision);
    },
  }),
];

import { recordManualAnalysis } from '../../application/report/commands.ts';
import { OBJECT_ID } from '../../platform/ids.ts';
import type { AppContext } from '../../application/context.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { statusObject } from '../../domain/report/statuses.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { REPORT_PROJECTION } from '../../projections/report/projection.ts';
import { findReportRow } from '../../projections/report/queries.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { route, type RouteSpec } from '../route.ts';
import { ManualAnalysisBody, ManualAnalysisReply } from './schemas.ts';

type Kind = 'MANUAL_ANALYSIS' | 'MANUAL_REANALYSIS';

async function analyze(app: AppContext, principal: Principal, kind: Kind, body: { id: string; approved: boolean; commentary: string }) {
  if (!OBJECT_ID.test(body.id)) throw new HttpError(400, 'id must be a mongodb id');
  const { position } = await recordManualAnalysis(app, principal, kind, body);
  await app.readYourWrites([REPORT_PROJECTION], position);
  const row = await findReportRow(app.db, principal.organizationId, body.id);
  if (!row) throw new DomainError('not_found', Messages.reportNotFound);
  return {
    id: row.id,
    analystId: row.analyst_id,
    analystName: row.analyst_name,
    policyStatus: row.policy_status,
    commentary: row.commentary,
    status: statusObject(row.status),
    updatedAt: row.updated_at,
  };
}

const description = (first: boolean) =>
  'Body: id (report), approved (true approves, false denies), commentary (replaces the previous one). Does not query sources again. ' +
  (first
    ? '409 when the policy has not decided yet or a manual analysis already exists (use /report/re-analyze).'
    : '403 `Usuário não tem permissão para refazer análise manual.`; 409 when no manual analysis exists yet (use /report/analyze).');

export const reportAnalysisRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/report/analyze',
    summary: 'Record the first manual analysis of a decided report',
    description: description(true),
    gate: Gates.reportAnalyze,
    body: ManualAnalysisBody,
    responses: { 200: ManualAnalysisReply },
    errors: [404],
    handle: ({ app, principal, body }) => analyze(app, principal, 'MANUAL_ANALYSIS', body),
  }),
  route({
    method: 'post',
    path: '/report/re-analyze',
    summary: 'Redo the manual analysis of a report',
    description: description(false),
    gate: Gates.reportReanalyze,
    body: ManualAnalysisBody,
    responses: { 200: ManualAnalysisReply },
    errors: [404],
    handle: ({ app, principal, body }) => analyze(app, principal, 'MANUAL_REANALYSIS', body),
  }),
];

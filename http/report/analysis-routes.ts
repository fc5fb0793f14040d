import { recordManualAnalysis } from '../../application/report/commands.ts';
import { OBJECT_ID } from '../../platform/ids.ts';
import type { AppContext } from '../../application/context.ts';
import { replyAfterWrite } from '../../application/read-your-writes.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { statusObject } from '../../domain/report/statuses.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import { HttpError } from '../errors.ts';
import { Gates } from '../gates.ts';
import { route, type RouteSpec } from '../route.ts';
import { ManualAnalysisBody, ManualAnalysisReply } from './schemas.ts';

type Kind = 'MANUAL_ANALYSIS' | 'MANUAL_REANALYSIS';

/** The reply is the decision just recorded; read-your-writes only serves the caller's next read. */
async function analyze(app: AppContext, principal: Principal, kind: Kind, body: { id: string; approved: boolean; commentary: string }) {
  if (!OBJECT_ID.test(body.id)) throw new HttpError(400, 'id must be a mongodb id');
  return replyAfterWrite(app, principal, await recordManualAnalysis(app, principal, kind, body), ({ events }) => {
    const d = events.find((e): e is Extract<ReportEvent, { type: 'ReportDecided' }> => e.type === 'ReportDecided')!.data;
    return {
      id: d.reportId,
      analystId: d.analystId,
      analystName: d.analystName,
      policyStatus: d.policyStatus,
      commentary: d.commentary,
      status: statusObject(d.status),
      updatedAt: d.decidedAt,
    };
  });
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

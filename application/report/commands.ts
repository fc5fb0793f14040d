import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream, type ReportProduct } from '../../domain/report/events.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { parseDocument, type DocumentType } from '../../domain/shared/document.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { handleCommand, newStream } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { OBJECT_ID } from '../../platform/ids.ts';
import { policyForNewReport } from '../credit-policy/commands.ts';

type App = Pick<AppContext, 'store' | 'ids' | 'clock'>;
type Caller = Pick<Principal, 'organizationId' | 'userId' | 'userName' | 'modules'>;

export interface ReportRequest {
  document: string;
  type: DocumentType;
  policyId: string;
  externalId?: string | null;
  /** Variables for rules (inputs.<key>); the proposals module feeds them. */
  inputs?: Record<string, unknown>;
  /** The product of the proposal the report is run for (the proposals module sets it). */
  product?: ReportProduct | null;
}

/**
 * POST /v2/report: checks the document and the policy, appends ReportRequested and returns at
 * once; the processing worker does the rest.
 */
export async function requestReport(app: App, caller: Caller, request: ReportRequest, options: { reportId?: string } = {}) {
  const document = parseDocument(request.document, request.type);
  if (!OBJECT_ID.test(request.policyId)) throw new DomainError('invalid', Messages.invalidPolicyId);
  const policy = await policyForNewReport(app, caller.organizationId, request.policyId);
  // A process manager gives an id derived from its own work, so that a retry finds the report it created (the append refuses a second).
  const reportId = options.reportId ?? app.ids.objectId();
  const sectionIds = Array.from({ length: policy.sections.length + 2 }, () => app.ids.objectId());
  return handleCommand(
    app.store,
    reportStream(reportId),
    reportDecider,
    {
      type: 'RequestReport',
      reportId,
      organizationId: caller.organizationId,
      userId: caller.userId,
      document,
      externalId: request.externalId ?? null,
      policy,
      scrEnabled: caller.modules.has('scr'),
      sectionIds,
      inputs: request.inputs ?? {},
      product: request.product ?? null,
      at: app.clock.now().toISOString(),
    },
    { loaded: newStream(reportDecider) },
  ); // a fresh id has no stream yet: no read before deciding
}

export interface ManualAnalysis {
  id: string;
  approved: boolean;
  commentary: string;
}

/** POST /report/analyze (the first human decision) and POST /report/re-analyze (redo it). */
export async function recordManualAnalysis(app: App, caller: Caller, kind: 'MANUAL_ANALYSIS' | 'MANUAL_REANALYSIS', analysis: ManualAnalysis) {
  return handleCommand(app.store, reportStream(analysis.id), reportDecider, {
    type: 'RecordManualAnalysis',
    kind,
    organizationId: caller.organizationId,
    analystId: caller.userId,
    analystName: caller.userName || null,
    approved: analysis.approved,
    commentary: analysis.commentary,
    at: app.clock.now().toISOString(),
  });
}

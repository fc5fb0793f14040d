import { createHash } from 'node:crypto';
import type { Principal } from '../../domain/identity/access.ts';
import type { ExecutionKind } from '../../domain/operation/events.ts';
import { executionStream } from '../../domain/operation/events.ts';
import { executionDecider, reportRunSteps } from '../../domain/operation/execution-decider.ts';
import { policyInputs } from '../../domain/operation/inputs.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { PipelineStep } from '../../domain/operation/pipeline.ts';
import { proposalRunsDecider, proposalRunsStream } from '../../domain/operation/runs-decider.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { ProposalMessages } from '../../domain/proposal/messages.ts';
import { isTerminal } from '../../domain/proposal/statuses.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { handleCommand } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { inputFieldsOf } from '../input-data/proposal.ts';
import { loadProposal, startAnalysis } from '../proposal/commands.ts';
import { requestReport } from '../report/commands.ts';
import { operationForRun } from './commands.ts';

type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'db' | 'config'>;
type Caller = Pick<Principal, 'organizationId' | 'userId' | 'userName' | 'modules'>;

export interface RunRequest {
  kind: ExecutionKind;
  targetId: string;
}

export interface RunStarted {
  operationResultId: string;
  reportId: string | null;
  position: Position | null;
}

/** Frees the target for a next run: the execution ended, or never started. */
export async function releaseRun(app: Pick<AppContext, 'store'>, facts: { proposalId: string; organizationId: string; executionId: string; targetId: string; at: string }) {
  await handleCommand(app.store, proposalRunsStream(facts.proposalId), proposalRunsDecider, { type: 'ReleaseRun', ...facts });
}

/**
 * POST /v1/proposals/{id}/run. The target is registered on the proposal's runs stream first, so
 * a second run of the same target is refused (409 with the running operationResultId) before
 * anything is created. kind REPORT creates its report here; kind OPERATION leaves every step to
 * the process manager. The execution and the proposal's link are written last: when they fail
 * after the report exists, the caller gets 503 with reportId and proposalRunId to resume from.
 */
export async function runProposal(app: App, caller: Caller, proposalId: string, request: RunRequest): Promise<RunStarted> {
  const proposal = await loadProposal(app, proposalId);
  if (!proposal.created || proposal.created.organizationId !== caller.organizationId) throw new DomainError('not_found', Messages.proposalNotFound);
  // A closed proposal takes no run: refused before any report is created.
  if (isTerminal(proposal.status)) throw new DomainError('conflict', ProposalMessages.proposalClosed);
  const { entityType, document } = proposal.created;
  const plan = request.kind === 'OPERATION' ? await operationForRun(app, caller.organizationId, request.targetId) : null;
  if (plan && !plan.content.entityTypes.includes(entityType)) throw new DomainError('unprocessable', OperationMessages.entityTypeNotServed);
  const executionId = app.ids.objectId();
  const at = app.clock.now().toISOString();
  const facts = { proposalId, organizationId: caller.organizationId, executionId, targetId: request.targetId, at };
  await handleCommand(app.store, proposalRunsStream(proposalId), proposalRunsDecider, { type: 'RegisterRun', ...facts });
  let report: { reportId: string; policyId: string } | undefined;
  try {
    if (request.kind === 'REPORT') report = { reportId: (await requestForRun(app, caller, proposal, request.targetId)).reportId, policyId: request.targetId };
  } catch (error) {
    await releaseRun(app, facts);
    throw error;
  }
  const steps: PipelineStep[] = plan ? plan.content.steps : reportRunSteps(entityType, request.targetId);
  let started = false;
  try {
    await handleCommand(app.store, executionStream(executionId), executionDecider, {
      type: 'StartExecution',
      executionId,
      organizationId: caller.organizationId,
      proposalId,
      kind: request.kind,
      operationId: plan ? request.targetId : null,
      operationVersion: plan?.version ?? null,
      targetId: request.targetId,
      document,
      entityType,
      steps,
      userId: caller.userId,
      at,
      report,
    });
    started = true;
    const { position } = await startAnalysis(app, { organizationId: caller.organizationId, proposalId, executionId, kind: request.kind, targetId: request.targetId, at });
    return { operationResultId: executionId, reportId: report?.reportId ?? null, position };
  } catch (error) {
    // Without its execution the target would stay registered with an id nobody can follow.
    if (!started) await releaseRun(app, facts).catch(() => undefined);
    if (!report) throw error;
    throw new DomainError('partial', OperationMessages.reportLinkFailed, { reportId: report.reportId, proposalRunId: executionId });
  }
}

/**
 * The report id of a pipeline's POLICY_REPORT step, derived from the execution and the step: one
 * report per step, so a resume after a crash between creating it and recording it finds it.
 */
export const pipelineReportId = (executionId: string, stepIndex: number) => createHash('sha256').update(`report:${executionId}:${stepIndex}`).digest('hex').slice(0, 24);

/**
 * A policy report on the proposal's document with the proposal's input data as the policy's
 * `inputs` (`reportId`: a pipeline's derived id): the same keys and values GET
 * /v1/proposals/{id}/input-data shows at that moment.
 */
export async function requestForRun(app: App, caller: Caller, proposal: ProposalState, policyId: string, reportId?: string) {
  const { document, entityType, externalId, productId, productKey, productName } = proposal.created!;
  const { fields } = await inputFieldsOf(app, proposal);
  const product = { id: productId, key: productKey, name: productName };
  const request = { document, type: entityType === 'COMPANY' ? ('cnpj' as const) : ('cpf' as const), policyId, externalId, inputs: policyInputs(fields), product };
  const result = await requestReport(app, caller, request, { reportId });
  return { reportId: result.state.facts!.reportId, position: result.position };
}

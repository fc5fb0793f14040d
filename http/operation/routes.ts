import Type from 'typebox';
import { closeExecution, decideAsOperator } from '../../application/operation/execution-commands.ts';
import { createOperation, createOperationVersion } from '../../application/operation/commands.ts';
import type { Written } from '../../application/command-handler.ts';
import { runProposal } from '../../application/operation/run-commands.ts';
import { rememberWrite, replyAfterWrite, type Caller } from '../../application/read-your-writes.ts';
import type { AppContext } from '../../application/context.ts';
import type { OperationState } from '../../domain/operation/decider.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { CATALOG_PROJECTION } from '../../projections/catalog/projection.ts';
import { COLLECTION_TEMPLATE_PROJECTION } from '../../projections/collection-template/projection.ts';
import { PRICING_PROJECTION } from '../../projections/pricing/projection.ts';
import { OPERATION_PROJECTION } from '../../projections/operation/projection.ts';
import { findExecution, findOperation, listExecutions, listOperations, listOperationVersions } from '../../projections/operation/queries.ts';
import { Gates } from '../gates.ts';
import { route, type RouteTable } from '../route.ts';
import { CloseBody, CloseReply, contentOf, DecisionBody, ExecutionSchema, IdParams, OperationBody, OperationSchema, RunBody, RunReply, VersionParams } from './schemas.ts';
import { presentOperation, presentExecution } from './present.ts';

async function operationOrNotFound(app: AppContext, organizationId: string, operationId: string, version?: number) {
  const view = await findOperation(app.db, organizationId, operationId, version);
  if (!view) throw new DomainError('not_found', OperationMessages.operationNotFound);
  return presentOperation(view);
}

async function written(app: AppContext, caller: Caller, result: Written<OperationState>) {
  rememberWrite(app, caller, result.position);
  // Kept: the reply is the read model's view of the pipeline (its dates and counts), which the decider's state does not carry.
  await app.readYourWrites([OPERATION_PROJECTION], result.position);
  return operationOrNotFound(app, caller.organizationId, result.state.operationId!, result.state.versions.length);
}

const reads = [OPERATION_PROJECTION];
/** A pipeline's collection steps name templates, checked in their read model. */
const definitionReads = [COLLECTION_TEMPLATE_PROJECTION];

async function executionOrNotFound(app: AppContext, organizationId: string, executionId: string) {
  const view = await findExecution(app.db, organizationId, executionId);
  if (!view) throw new DomainError('not_found', OperationMessages.executionNotFound);
  return presentExecution(view);
}

export const operationRoutes: RouteTable = {
  module: 'operation',
  description: 'Pipelines (operations), their executions, runs of a proposal and the external closing (docs/operations.md)',
  routes: [
    route({
      method: 'get',
      path: '/v1/operations',
      summary: "The organization's pipelines at their latest version",
      gate: Gates.operationsRead,
      responses: { 200: Type.Array(OperationSchema) },
      reads,
      async handle({ app, principal }) {
        return (await listOperations(app.db, principal.organizationId)).map(presentOperation);
      },
    }),
    route({
      method: 'post',
      path: '/v1/operations',
      summary: 'Define a pipeline (version 1)',
      description: 'COLLECTION and CONTRACT_SIGNATURE steps are refused until the collections module exists.',
      gate: Gates.operationsManage,
      body: OperationBody,
      responses: { 200: OperationSchema },
      reads: definitionReads,
      async handle({ app, principal, body }) {
        return written(app, principal, await createOperation(app, principal, contentOf(body)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/operations/:id',
      summary: 'A pipeline at its latest version',
      gate: Gates.operationsRead,
      params: IdParams,
      responses: { 200: OperationSchema },
      reads,
      async handle({ app, principal, params }) {
        return operationOrNotFound(app, principal.organizationId, params.id);
      },
    }),
    route({
      method: 'put',
      path: '/v1/operations/:id',
      summary: 'Edit a pipeline: a new immutable version with the whole content',
      description: 'Running executions keep the steps they started with. Unchanged content makes no version.',
      gate: Gates.operationsManage,
      params: IdParams,
      body: OperationBody,
      responses: { 200: OperationSchema },
      reads: definitionReads,
      async handle({ app, principal, params, body }) {
        return written(app, principal, await createOperationVersion(app, principal, params.id, contentOf(body)));
      },
    }),
    route({
      method: 'get',
      path: '/v1/operations/:id/versions',
      summary: 'Every version of a pipeline, oldest first',
      gate: Gates.operationsRead,
      params: IdParams,
      responses: { 200: Type.Array(OperationSchema) },
      reads,
      async handle({ app, principal, params }) {
        const versions = await listOperationVersions(app.db, principal.organizationId, params.id);
        if (!versions.length) throw new DomainError('not_found', OperationMessages.operationNotFound);
        return versions.map(presentOperation);
      },
    }),
    route({
      method: 'get',
      path: '/v1/operations/:id/versions/:version',
      summary: 'One version of a pipeline (the one an execution names in operationVersion)',
      gate: Gates.operationsRead,
      params: VersionParams,
      responses: { 200: OperationSchema },
      reads,
      async handle({ app, principal, params }) {
        return operationOrNotFound(app, principal.organizationId, params.id, params.version);
      },
    }),
    route({
      method: 'get',
      path: '/v1/operations/:id/executions',
      summary: "A pipeline's executions, newest first",
      gate: Gates.operationsRead,
      params: IdParams,
      responses: { 200: Type.Array(ExecutionSchema) },
      reads,
      async handle({ app, principal, params }) {
        await operationOrNotFound(app, principal.organizationId, params.id);
        return (await listExecutions(app.db, principal.organizationId, { operationId: params.id })).map(presentExecution);
      },
    }),
    route({
      method: 'get',
      path: '/v1/executions/:id',
      summary: 'One execution by its operationResultId: status, steps with times, reports, offers',
      description: 'Executions of kind REPORT have no pipeline, so they are read here rather than under /v1/operations.',
      gate: Gates.operationsRead,
      params: IdParams,
      responses: { 200: ExecutionSchema },
      reads,
      async handle({ app, principal, params }) {
        return executionOrNotFound(app, principal.organizationId, params.id);
      },
    }),
    route({
      method: 'post',
      path: '/v1/executions/:id/decision',
      summary: "An operator's decision on an execution in WAITING_OPERATOR",
      gate: Gates.proposalsOperate,
      params: IdParams,
      body: DecisionBody,
      responses: { 200: ExecutionSchema },
      async handle({ app, principal, params, body }) {
        const { position } = await decideAsOperator(app, principal, params.id, body.approved, body.reason ?? null);
        rememberWrite(app, principal, position);
        // Kept: the reply is the execution's view in the read model, which the command's result does not hold.
        await app.readYourWrites([OPERATION_PROJECTION], position);
        return executionOrNotFound(app, principal.organizationId, params.id);
      },
    }),
    route({
      method: 'post',
      path: '/v1/proposals/:id/run',
      summary: 'Run a pipeline (kind OPERATION) or a single policy report (kind REPORT) on a proposal',
      description:
        '409 with operationResultId while the same target runs for the proposal; 422 when the policy is of the other document type; 503 with reportId and proposalRunId when the report was created but could not be linked.',
      gate: Gates.proposalsRun,
      params: IdParams,
      body: RunBody,
      responses: { 200: RunReply },
      errors: [404, 409, 422, 503],
      // The pipeline, its templates, the proposal's product and the indexes it prices with come from read models.
      reads: [...reads, ...definitionReads, CATALOG_PROJECTION, PRICING_PROJECTION],
      async handle({ app, principal, params, body }) {
        return replyAfterWrite(app, principal, await runProposal(app, principal, params.id, body), (started) => ({
          operationResultId: started.operationResultId,
          proposalId: params.id,
          kind: body.kind,
          targetId: body.targetId,
          reportId: started.reportId,
          status: 'RUNNING',
        }));
      },
    }),
    route({
      method: 'post',
      path: '/operation/close',
      summary: "External closing: the lender's system issued (or canceled) an execution on a date",
      description: 'No version prefix. A repeat of the same closing answers 200 with the same result; another status or date for a closed execution is 409.',
      gate: Gates.externalClosing,
      body: CloseBody,
      responses: { 200: CloseReply },
      errors: [404, 409],
      async handle({ app, principal, body }) {
        return replyAfterWrite(app, principal, await closeExecution(app, principal, body), ({ proposalId, closing }) => ({
          operationResultId: body.operationResultId,
          proposalId,
          status: body.status,
          ...closing,
        }));
      },
    }),
  ],
};

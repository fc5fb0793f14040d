import type { Knex } from 'knex';
import type { PipelineContent } from '../../domain/operation/pipeline.ts';
import type { StepCollectionView, StepView } from './projection.ts';

const iso = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));

export interface OperationView {
  id: string;
  organizationId: string;
  version: number;
  content: PipelineContent;
  createdBy: string;
  versionCreatedAt: string;
}

const operationOf = (row: Record<string, unknown>): OperationView => ({
  id: row.operation_id as string,
  organizationId: row.organization_id as string,
  version: row.version as number,
  content: row.content as PipelineContent,
  createdBy: row.created_by as string,
  versionCreatedAt: iso(row.created_at)!,
});

/** The organization's pipelines at their latest version, by name. */
export async function listOperations(db: Knex, organizationId: string): Promise<OperationView[]> {
  const latest = db('operation_versions')
    .where({ organization_id: organizationId })
    .distinctOn('operation_id')
    .orderBy([{ column: 'operation_id' }, { column: 'version', order: 'desc' }]);
  return (await db.from(latest.as('v')).orderBy(['name', 'operation_id'])).map(operationOf);
}

/** One version of a pipeline (the latest when `version` is absent); another organization's is absent. */
export async function findOperation(db: Knex, organizationId: string, operationId: string, version?: number): Promise<OperationView | null> {
  const query = db('operation_versions').where({ organization_id: organizationId, operation_id: operationId });
  if (version !== undefined) query.andWhere({ version });
  const row = await query.orderBy('version', 'desc').first();
  return row ? operationOf(row) : null;
}

export async function listOperationVersions(db: Knex, organizationId: string, operationId: string): Promise<OperationView[]> {
  return (await db('operation_versions').where({ organization_id: organizationId, operation_id: operationId }).orderBy('version')).map(operationOf);
}

export interface ExecutionView {
  operationResultId: string;
  organizationId: string;
  proposalId: string;
  kind: 'OPERATION' | 'REPORT';
  operationId: string | null;
  operationVersion: number | null;
  targetId: string;
  document: string;
  entityType: string;
  status: string;
  steps: StepView[];
  reportIds: string[];
  indicativeOfferId: string | null;
  chosen: { offerId: string; amountCents: number; termMonths: number } | null;
  firmOfferId: string | null;
  decision: 'APPROVED' | 'REJECTED' | null;
  rejectionStep: string | null;
  closing: { date: string; externalId: string | null } | null;
  /** The contract of a CONTRACT_SIGNATURE step: its registry document and the collection that signs it. */
  contract: { collectionId: string; contractDocumentId: string; formalizedAt: string | null } | null;
  /** The collections its COLLECTION steps opened, in order; completedAt once each completed. */
  collections: StepCollectionView[];
  startedBy: string;
  startedAt: string;
  decidedAt: string | null;
  finishedAt: string | null;
  updatedAt: string;
}

function executionOf(row: Record<string, unknown>): ExecutionView {
  return {
    operationResultId: row.id as string,
    organizationId: row.organization_id as string,
    proposalId: row.proposal_id as string,
    kind: row.kind as ExecutionView['kind'],
    operationId: row.operation_id as string | null,
    operationVersion: row.operation_version as number | null,
    targetId: row.target_id as string,
    document: row.document as string,
    entityType: row.entity_type as string,
    status: row.status as string,
    steps: row.steps as StepView[],
    reportIds: row.report_ids as string[],
    indicativeOfferId: row.indicative_offer_id as string | null,
    chosen: row.chosen_offer_id ? { offerId: row.chosen_offer_id as string, amountCents: Number(row.chosen_amount_cents), termMonths: row.chosen_term_months as number } : null,
    firmOfferId: row.firm_offer_id as string | null,
    decision: row.decision as ExecutionView['decision'],
    rejectionStep: row.rejection_step as string | null,
    closing: row.closing as ExecutionView['closing'],
    contract: (row.contract as ExecutionView['contract']) ?? null,
    collections: (row.collections as StepCollectionView[]) ?? [],
    startedBy: row.started_by as string,
    startedAt: iso(row.started_at)!,
    decidedAt: iso(row.decided_at),
    finishedAt: iso(row.finished_at),
    updatedAt: iso(row.updated_at)!,
  };
}

/** Executions, newest first: of one pipeline, or of one proposal. */
export async function listExecutions(db: Knex, organizationId: string, filter: { operationId?: string; proposalId?: string }): Promise<ExecutionView[]> {
  const query = db('operation_executions').where({ organization_id: organizationId });
  if (filter.operationId) query.andWhere({ operation_id: filter.operationId });
  if (filter.proposalId) query.andWhere({ proposal_id: filter.proposalId });
  return (
    await query.orderBy([
      { column: 'started_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
  ).map(executionOf);
}

export async function findExecution(db: Knex, organizationId: string, executionId: string): Promise<ExecutionView | null> {
  const row = await db('operation_executions').where({ organization_id: organizationId, id: executionId }).first();
  return row ? executionOf(row) : null;
}

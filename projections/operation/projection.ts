import { ERASED, PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { Knex } from 'knex';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { ExecutionEventTypes, OperationEventTypes, type ExecutionEvent, type OperationEvent } from '../../domain/operation/events.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const OPERATION_PROJECTION = 'operation';

/** A step of an execution as the detail shows it. */
export interface StepView {
  index: number;
  kind: string;
  status: 'PENDING' | 'RUNNING' | 'WAITING' | 'DONE' | 'REJECTED' | 'FAILED' | 'CANCELED' | 'EXPIRED';
  startedAt: string | null;
  finishedAt: string | null;
}

/** A collection a COLLECTION step opened, as the detail shows it. */
export interface StepCollectionView {
  stepIndex: number;
  collectionId: string;
  templateSlug: string;
  completedAt: string | null;
}

type Row = Record<string, unknown> & { steps: StepView[]; report_ids: string[]; collections: StepCollectionView[] };

/** Step `index` done at `at`; the next one (if any) starts then. Setting absolute values keeps a replay harmless. */
function advance(steps: StepView[], index: number, at: string): StepView[] {
  return steps.map((s) => {
    if (s.index === index) return { ...s, status: 'DONE', finishedAt: at };
    if (s.index === index + 1) return { ...s, status: s.kind === 'WAIT_CUSTOMER_CHOICE' ? 'WAITING' : 'RUNNING', startedAt: at };
    return s;
  });
}

/** The status once step `index` is done: waiting for the customer when the next step is the choice. */
function statusAfter(steps: StepView[], index: number): string {
  return steps[index + 1]?.kind === 'WAIT_CUSTOMER_CHOICE' ? 'WAITING_CUSTOMER' : 'RUNNING';
}

function mark(steps: StepView[], index: number, status: StepView['status'], at: string | null): StepView[] {
  return steps.map((s) => (s.index === index ? { ...s, status, finishedAt: at ?? s.finishedAt } : s));
}

/** The row's changes for one event after the start. */
function change(row: Row, event: Exclude<ExecutionEvent, { type: 'ExecutionStarted' }>): Record<string, unknown> {
  const { stepIndex, at } = event.data;
  switch (event.type) {
    case 'ExecutionReportRequested':
      return { report_ids: JSON.stringify([...new Set([...row.report_ids, event.data.reportId])]) };
    case 'ExecutionReportFinished':
      if (event.data.status !== 'APPROVED') return {};
      return { status: statusAfter(row.steps, stepIndex), steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    case 'ExecutionOfferSent':
      return { indicative_offer_id: event.data.offerId, status: statusAfter(row.steps, stepIndex), steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    case 'ExecutionOfferChosen': {
      const { offerId, amountCents, termMonths } = event.data;
      return { chosen_offer_id: offerId, chosen_amount_cents: amountCents, chosen_term_months: termMonths, status: 'RUNNING', steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    }
    case 'ExecutionOperatorAwaited':
      return { status: 'WAITING_OPERATOR', steps: JSON.stringify(mark(row.steps, stepIndex, 'WAITING', null)) };
    case 'ExecutionApproved': {
      // An operator letting a report in manual analysis go on is not the pipeline's decision; the final approval is.
      const decided = row.steps[stepIndex]?.kind === 'FINAL_APPROVAL' ? { decision: 'APPROVED', decided_at: at } : {};
      return { status: statusAfter(row.steps, stepIndex), ...decided, steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    }
    case 'ExecutionFirmOfferIssued':
      return { firm_offer_id: event.data.offerId, status: 'WAITING_CLOSING', steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    case 'ExecutionContractOpened': {
      const { collectionId, contractDocumentId } = event.data;
      return { contract: JSON.stringify({ collectionId, contractDocumentId, formalizedAt: null }), status: 'WAITING_SIGNATURE', steps: JSON.stringify(mark(row.steps, stepIndex, 'WAITING', null)) };
    }
    case 'ExecutionContractFormalized': {
      const { collectionId, contractDocumentId } = event.data;
      // A firm offer issued before the contract leaves the execution waiting for the lender's closing once it is signed.
      const status = row.firm_offer_id && !row.steps[stepIndex + 1] ? 'WAITING_CLOSING' : statusAfter(row.steps, stepIndex);
      return { contract: JSON.stringify({ collectionId, contractDocumentId, formalizedAt: at }), status, steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    }
    case 'ExecutionCollectionOpened': {
      const { collectionId, templateSlug } = event.data;
      const opened = row.collections.filter((c) => c.collectionId !== collectionId);
      const collections = [...opened, { stepIndex, collectionId, templateSlug, completedAt: null }];
      return { collections: JSON.stringify(collections), status: 'WAITING_COLLECTION', steps: JSON.stringify(mark(row.steps, stepIndex, 'WAITING', null)) };
    }
    case 'ExecutionCollectionCompleted': {
      const collections = row.collections.map((c) => (c.collectionId === event.data.collectionId ? { ...c, completedAt: at } : c));
      return { collections: JSON.stringify(collections), status: statusAfter(row.steps, stepIndex), steps: JSON.stringify(advance(row.steps, stepIndex, at)) };
    }
    case 'ExecutionFinished': {
      const { status, rejectionStep, closing } = event.data;
      const stepStatus = (['REJECTED', 'FAILED', 'CANCELED', 'EXPIRED'] as const).find((s) => s === status) ?? null;
      return {
        status,
        finished_at: at,
        rejection_step: rejectionStep,
        closing: closing && JSON.stringify(closing),
        ...(status === 'REJECTED' ? { decision: 'REJECTED', decided_at: at } : {}),
        ...(stepStatus ? { steps: JSON.stringify(mark(row.steps, stepIndex, stepStatus, at)) } : {}),
      };
    }
  }
}

async function applyExecution(event: ExecutionEvent, trx: Knex.Transaction, subject: string | null): Promise<void> {
  if (event.type === 'ExecutionStarted') {
    const d = event.data;
    const steps: StepView[] = d.steps.map((s, index) => ({ index, kind: s.kind, status: index === 0 ? 'RUNNING' : 'PENDING', startedAt: index === 0 ? d.at : null, finishedAt: null }));
    await trx('operation_executions')
      .insert({
        id: d.executionId,
        organization_id: d.organizationId,
        proposal_id: d.proposalId,
        kind: d.kind,
        operation_id: d.operationId,
        operation_version: d.operationVersion,
        target_id: d.targetId,
        document: d.document,
        entity_type: d.entityType,
        subject_id: subject,
        status: 'RUNNING',
        steps: JSON.stringify(steps),
        report_ids: JSON.stringify([]),
        started_by: d.userId,
        started_at: d.at,
        updated_at: d.at,
      })
      .onConflict('id')
      .ignore();
    return;
  }
  const row = (await trx('operation_executions').where({ id: event.data.executionId }).forUpdate().first()) as Row | undefined;
  if (!row) return;
  await trx('operation_executions')
    .where({ id: event.data.executionId })
    .update({ ...change(row, event), updated_at: event.data.at });
}

async function applyOperation(event: OperationEvent, trx: Knex.Transaction): Promise<void> {
  const { operationId, organizationId, version, content, userId, createdAt } = event.data;
  await trx('operation_versions')
    .insert({ operation_id: operationId, version, organization_id: organizationId, name: content.name, content: JSON.stringify(content), created_by: userId, created_at: createdAt })
    .onConflict(['operation_id', 'version'])
    .ignore();
}

const OPERATION_TYPES: readonly string[] = Object.values(OperationEventTypes);

/** Pipeline versions, and executions with their steps and the facts the dashboard needs. */
export const operationProjection: Projection = {
  name: OPERATION_PROJECTION,
  eventTypes: [...OPERATION_TYPES, ...Object.values(ExecutionEventTypes), PERSONAL_DATA_ERASED],
  tables: ['operation_versions', 'operation_executions'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) {
      const domainEvent: unknown = { type: event.type, data: event.data };
      if (event.type === PERSONAL_DATA_ERASED) {
        const { subjectId } = event.data as unknown as PersonalDataErased;
        await trx('operation_executions').where({ subject_id: subjectId }).update({ document: ERASED });
      } else if (OPERATION_TYPES.includes(event.type)) await applyOperation(domainEvent as OperationEvent, trx);
      else await applyExecution(domainEvent as ExecutionEvent, trx, (event.metadata[SUBJECTS_METADATA] as string[] | undefined)?.[0] ?? null);
    }
  },
};

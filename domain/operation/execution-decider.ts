import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import type { EntityType } from '../pricing/terms.ts';
import type { ExecutionEvent, ExecutionFinished, ExecutionKind, ExecutionStarted, ExecutionStatus, FinalStatus, ReportOutcome } from './events.ts';
import { OperationMessages } from './messages.ts';
import type { CollectionStep, ContractStep, PipelineStep } from './pipeline.ts';

type StartData = ExecutionStarted['data'];

export type ExecutionCommand =
  /** kind REPORT arrives with the report the run route already created (reportId, policyId). */
  | ({ type: 'StartExecution'; report?: { reportId: string; policyId: string } } & StartData)
  | { type: 'RecordReport'; reportId: string; policyId: string; at: string }
  | { type: 'RecordReportResult'; reportId: string; status: ReportOutcome; score: number | null; at: string }
  | { type: 'RecordOfferSent'; offerId: string; at: string }
  | { type: 'RecordOfferChosen'; offerId: string; amountCents: number; termMonths: number; at: string }
  | { type: 'RecordOfferExpired'; offerId: string; at: string }
  | { type: 'DecideFinalApproval'; at: string }
  | { type: 'DecideAsOperator'; organizationId: string; approved: boolean; userId: string; reason: string | null; at: string }
  | { type: 'RecordFirmOffer'; offerId: string; at: string }
  | { type: 'RecordContractOpened'; collectionId: string; contractDocumentId: string; at: string }
  | { type: 'RecordContractSigned'; collectionId: string; provider: string; contentHash: string; at: string }
  /** The contract's collection closed without the signature: canceled, expired, or completed with the item waived. */
  | { type: 'RecordContractEnded'; collectionId: string; outcome: 'CANCELED' | 'EXPIRED' | 'UNSIGNED'; reason: string | null; at: string }
  | { type: 'RecordCollectionOpened'; collectionId: string; templateSlug: string; at: string }
  | { type: 'RecordCollectionCompleted'; collectionId: string; at: string }
  | { type: 'RecordCollectionEnded'; collectionId: string; outcome: 'CANCELED' | 'EXPIRED'; reason: string | null; at: string }
  | { type: 'CloseExecution'; organizationId: string; status: 'ISSUED' | 'CANCELED'; date: string; externalId: string | null; userId: string; at: string }
  | { type: 'FailExecution'; reason: string; at: string };

export interface ExecutionState {
  started: StartData | null;
  cursor: number;
  awaitingOperator: boolean;
  pendingReportId: string | null;
  reportIds: string[];
  lastReport: ReportOutcome | null;
  offerId: string | null;
  chosen: { offerId: string; amountCents: number; termMonths: number } | null;
  firmOfferId: string | null;
  /** The contract of the CONTRACT_SIGNATURE step, once its collection is open. */
  contract: { collectionId: string; contractDocumentId: string; formalized: boolean } | null;
  /** The collection the current COLLECTION step opened (each such step opens its own). */
  collection: { collectionId: string; stepIndex: number } | null;
  finished: ExecutionFinished['data'] | null;
}

export function executionStatus(state: ExecutionState): ExecutionStatus {
  if (state.finished) return state.finished.status;
  if (state.awaitingOperator) return 'WAITING_OPERATOR';
  const step = state.started?.steps[state.cursor];
  if (!step) return state.firmOfferId ? 'WAITING_CLOSING' : 'RUNNING';
  if (step.kind === 'CONTRACT_SIGNATURE' && state.contract) return 'WAITING_SIGNATURE';
  if (step.kind === 'COLLECTION' && state.collection?.stepIndex === state.cursor) return 'WAITING_COLLECTION';
  return step.kind === 'WAIT_CUSTOMER_CHOICE' ? 'WAITING_CUSTOMER' : 'RUNNING';
}

/** What the process manager must do next for this execution (null: wait for an event or a person). */
export type NextAction =
  | { type: 'REQUEST_REPORT'; policyId: string }
  | { type: 'SEND_OFFER'; step: Extract<PipelineStep, { kind: 'PRE_APPROVAL' }> }
  | { type: 'DECIDE_FINAL' }
  | { type: 'ISSUE_FIRM_OFFER'; step: Extract<PipelineStep, { kind: 'ISSUE_FIRM_OFFER' }>; chosen: NonNullable<ExecutionState['chosen']> }
  | { type: 'OPEN_CONTRACT'; step: ContractStep; stepIndex: number; chosen: NonNullable<ExecutionState['chosen']> }
  | { type: 'OPEN_COLLECTION'; step: CollectionStep; stepIndex: number };

export function nextAction(state: ExecutionState): NextAction | null {
  if (!state.started || state.finished || state.awaitingOperator) return null;
  const step = state.started.steps[state.cursor];
  switch (step?.kind) {
    case 'POLICY_REPORT':
      return state.pendingReportId ? null : { type: 'REQUEST_REPORT', policyId: step.policies[state.started.entityType]! };
    case 'PRE_APPROVAL':
      return { type: 'SEND_OFFER', step };
    case 'FINAL_APPROVAL':
      return { type: 'DECIDE_FINAL' };
    case 'ISSUE_FIRM_OFFER':
      // validatePipeline puts a WAIT_CUSTOMER_CHOICE before it, so a choice is there.
      return state.chosen && { type: 'ISSUE_FIRM_OFFER', step, chosen: state.chosen };
    case 'CONTRACT_SIGNATURE':
      // Once open, the contract waits for its collection (the process manager looks at it).
      return state.contract || !state.chosen ? null : { type: 'OPEN_CONTRACT', step, stepIndex: state.cursor, chosen: state.chosen };
    case 'COLLECTION':
      // Once open, the step waits for its collection (the process manager looks at it).
      return state.collection?.stepIndex === state.cursor ? null : { type: 'OPEN_COLLECTION', step, stepIndex: state.cursor };
    default:
      return null;
  }
}

/** The steps of a kind REPORT run: one policy report. */
export function reportRunSteps(entityType: EntityType, policyId: string): PipelineStep[] {
  return [{ kind: 'POLICY_REPORT', policies: { [entityType]: policyId } }];
}

export const isRunning = (state: ExecutionState) => state.started !== null && state.finished === null;

const conflict = (message: string) => new DomainError('conflict', message);

function running(state: ExecutionState): StartData {
  if (!state.started) throw new DomainError('not_found', OperationMessages.executionNotFound);
  if (state.finished) throw conflict(OperationMessages.executionFinished);
  return state.started;
}

function visible(state: ExecutionState, organizationId: string): void {
  if (!state.started || state.started.organizationId !== organizationId) throw new DomainError('not_found', OperationMessages.executionNotFound);
}

export const executionDecider: Decider<ExecutionCommand, ExecutionEvent, ExecutionState> = {
  initialState: () => ({
    started: null,
    cursor: 0,
    awaitingOperator: false,
    pendingReportId: null,
    reportIds: [],
    lastReport: null,
    offerId: null,
    chosen: null,
    firmOfferId: null,
    contract: null,
    collection: null,
    finished: null,
  }),

  evolve(state, event) {
    switch (event.type) {
      case 'ExecutionStarted':
        return { ...state, started: event.data };
      case 'ExecutionReportRequested':
        return { ...state, pendingReportId: event.data.reportId, reportIds: [...state.reportIds, event.data.reportId] };
      case 'ExecutionReportFinished':
        return { ...state, pendingReportId: null, lastReport: event.data.status, cursor: state.cursor + (event.data.status === 'APPROVED' ? 1 : 0) };
      case 'ExecutionOfferSent':
        return { ...state, offerId: event.data.offerId, cursor: state.cursor + 1 };
      case 'ExecutionOfferChosen':
        return { ...state, chosen: { offerId: event.data.offerId, amountCents: event.data.amountCents, termMonths: event.data.termMonths }, cursor: state.cursor + 1 };
      case 'ExecutionOperatorAwaited':
        return { ...state, awaitingOperator: true };
      case 'ExecutionApproved':
        return { ...state, awaitingOperator: false, cursor: state.cursor + 1 };
      case 'ExecutionFirmOfferIssued':
        return { ...state, firmOfferId: event.data.offerId, cursor: state.cursor + 1 };
      case 'ExecutionContractOpened':
        return { ...state, contract: { collectionId: event.data.collectionId, contractDocumentId: event.data.contractDocumentId, formalized: false } };
      case 'ExecutionContractFormalized':
        return { ...state, contract: { ...state.contract!, formalized: true }, cursor: state.cursor + 1 };
      case 'ExecutionCollectionOpened':
        return { ...state, collection: { collectionId: event.data.collectionId, stepIndex: event.data.stepIndex } };
      case 'ExecutionCollectionCompleted':
        return { ...state, cursor: state.cursor + 1 };
      case 'ExecutionFinished':
        return { ...state, awaitingOperator: false, finished: event.data };
      default:
        return state;
    }
  },

  decide(command, state) {
    if (command.type === 'StartExecution') {
      if (state.started) throw conflict(OperationMessages.executionRunning);
      const { type: _type, report, ...data } = command;
      const started: ExecutionEvent = { type: 'ExecutionStarted', data };
      if (!report) return [started];
      return [started, { type: 'ExecutionReportRequested', data: { ...facts(data), stepIndex: 0, ...report, at: data.at } }];
    }
    if (command.type === 'CloseExecution') return close(command, state);
    if (command.type === 'FailExecution') {
      if (!isRunning(state)) return [];
      return [finish(state, 'FAILED', command.at, { reason: command.reason })];
    }
    if (command.type === 'DecideAsOperator') {
      visible(state, command.organizationId);
      running(state);
      if (!state.awaitingOperator) throw conflict(OperationMessages.executionNotWaitingOperator);
      const { userId, reason, at } = command;
      if (!command.approved) return [finish(state, 'REJECTED', at, { rejectionStep: stepKind(state), reason, userId })];
      return settle(state, [{ type: 'ExecutionApproved', data: { ...stepFacts(state, at), by: 'OPERATOR', userId, reason } }]);
    }
    return settle(state, decideStep(command, state));
  },
};

type StepCommand = Exclude<ExecutionCommand, { type: 'StartExecution' | 'CloseExecution' | 'FailExecution' | 'DecideAsOperator' }>;

/** Commands of the process manager: each belongs to one step kind; a repeated one decides nothing. */
function decideStep(command: StepCommand, state: ExecutionState): ExecutionEvent[] {
  const started = running(state);
  const step = started.steps[state.cursor];
  const base = stepFacts(state, command.at);
  switch (command.type) {
    case 'RecordReport':
      if (step?.kind !== 'POLICY_REPORT' || state.pendingReportId) return [];
      return [{ type: 'ExecutionReportRequested', data: { ...base, reportId: command.reportId, policyId: command.policyId } }];
    case 'RecordReportResult': {
      if (command.reportId !== state.pendingReportId) return [];
      const finished: ExecutionEvent = { type: 'ExecutionReportFinished', data: { ...base, reportId: command.reportId, status: command.status, score: command.score } };
      return [finished, ...afterReport(state, started.kind, command.status, command.at)];
    }
    case 'RecordOfferSent':
      if (step?.kind !== 'PRE_APPROVAL') return [];
      return [{ type: 'ExecutionOfferSent', data: { ...base, offerId: command.offerId } }];
    case 'RecordOfferChosen':
      if (state.chosen?.offerId === command.offerId) return [];
      if (step?.kind !== 'WAIT_CUSTOMER_CHOICE' || command.offerId !== state.offerId) throw conflict(OperationMessages.executionNotWaitingChoice);
      return [{ type: 'ExecutionOfferChosen', data: { ...base, offerId: command.offerId, amountCents: command.amountCents, termMonths: command.termMonths } }];
    case 'RecordOfferExpired':
      // The customer let the offer lapse: nothing to wait for, the execution ends with it.
      if (step?.kind !== 'WAIT_CUSTOMER_CHOICE' || command.offerId !== state.offerId) return [];
      return [finish(state, 'EXPIRED', command.at, { reason: OperationMessages.offerExpiredWithoutChoice })];
    case 'DecideFinalApproval':
      if (step?.kind !== 'FINAL_APPROVAL' || state.awaitingOperator) return [];
      if (step.by === 'OPERATOR' || state.lastReport === 'MANUAL_ANALYSIS') return [{ type: 'ExecutionOperatorAwaited', data: { ...base, reason: 'FINAL_APPROVAL' } }];
      if (state.lastReport === 'APPROVED') return [{ type: 'ExecutionApproved', data: { ...base, by: 'POLICY', userId: null, reason: null } }];
      return [finish(state, 'REJECTED', command.at, { rejectionStep: 'FINAL_APPROVAL' })];
    case 'RecordFirmOffer':
      if (step?.kind !== 'ISSUE_FIRM_OFFER') return [];
      return [{ type: 'ExecutionFirmOfferIssued', data: { ...base, offerId: command.offerId } }];
    case 'RecordContractOpened':
      if (step?.kind !== 'CONTRACT_SIGNATURE' || state.contract) return [];
      return [{ type: 'ExecutionContractOpened', data: { ...base, collectionId: command.collectionId, contractDocumentId: command.contractDocumentId } }];
    case 'RecordContractSigned': {
      const contract = waitingContract(state, step, command.collectionId);
      if (!contract) return [];
      const { provider, contentHash } = command;
      return [{ type: 'ExecutionContractFormalized', data: { ...base, collectionId: contract.collectionId, contractDocumentId: contract.contractDocumentId, provider, contentHash } }];
    }
    case 'RecordContractEnded': {
      if (!waitingContract(state, step, command.collectionId)) return [];
      const { outcome, reason, at } = command;
      if (outcome === 'CANCELED') return [finish(state, 'CANCELED', at, { reason: OperationMessages.contractCanceled(reason) })];
      if (outcome === 'EXPIRED') return [finish(state, 'EXPIRED', at, { reason: reason ?? OperationMessages.contractExpired })];
      return [finish(state, 'FAILED', at, { reason: OperationMessages.contractCompletedUnsigned })];
    }
    case 'RecordCollectionOpened':
      if (step?.kind !== 'COLLECTION' || state.collection?.stepIndex === state.cursor) return [];
      return [{ type: 'ExecutionCollectionOpened', data: { ...base, collectionId: command.collectionId, templateSlug: command.templateSlug } }];
    case 'RecordCollectionCompleted':
      if (!waitingCollection(state, step, command.collectionId)) return [];
      return [{ type: 'ExecutionCollectionCompleted', data: { ...base, collectionId: command.collectionId } }];
    case 'RecordCollectionEnded': {
      if (!waitingCollection(state, step, command.collectionId)) return [];
      const { outcome, reason, at } = command;
      if (outcome === 'CANCELED') return [finish(state, 'CANCELED', at, { reason: OperationMessages.collectionCanceled(reason) })];
      return [finish(state, 'EXPIRED', at, { reason: reason ?? OperationMessages.collectionExpired })];
    }
  }
}

/** Whether `collectionId` is the collection the current COLLECTION step waits on. */
function waitingCollection(state: ExecutionState, step: PipelineStep | undefined, collectionId: string): boolean {
  return step?.kind === 'COLLECTION' && state.collection?.stepIndex === state.cursor && state.collection.collectionId === collectionId;
}

/** The contract this execution waits on, when `collectionId` is its collection and it is not formalized yet. */
function waitingContract(state: ExecutionState, step: PipelineStep | undefined, collectionId: string) {
  const contract = state.contract;
  return step?.kind === 'CONTRACT_SIGNATURE' && contract?.collectionId === collectionId && !contract.formalized ? contract : null;
}

function afterReport(state: ExecutionState, kind: ExecutionKind, status: ReportOutcome, at: string): ExecutionEvent[] {
  switch (status) {
    case 'APPROVED':
      return [];
    case 'DENIED':
      return [finish(state, 'REJECTED', at, { rejectionStep: 'POLICY_REPORT' })];
    case 'FAILED':
      return [finish(state, 'FAILED', at, { reason: OperationMessages.reportFailed })];
    case 'MANUAL_ANALYSIS':
      // A single report run ends with its report in the analysts' hands; a pipeline asks its operator.
      if (kind === 'REPORT') return [finish(state, 'MANUAL_ANALYSIS', at, {})];
      return [{ type: 'ExecutionOperatorAwaited', data: { ...stepFacts(state, at), reason: 'MANUAL_ANALYSIS' } }];
  }
}

/** A pipeline whose last step is done ends APPROVED, unless a firm offer waits for the lender's closing. */
function settle(state: ExecutionState, events: ExecutionEvent[]): ExecutionEvent[] {
  const after = events.reduce(executionDecider.evolve, state);
  if (after.finished || after.awaitingOperator || after.firmOfferId || after.cursor < after.started!.steps.length) return events;
  const last = events[events.length - 1]!.data as { at: string };
  return [...events, finish(after, 'APPROVED', last.at, {})];
}

function close(command: Extract<ExecutionCommand, { type: 'CloseExecution' }>, state: ExecutionState): ExecutionEvent[] {
  visible(state, command.organizationId);
  const { status, date, externalId, userId, at } = command;
  if (state.finished) {
    const same = state.finished.status === status && state.finished.closing?.date === date;
    if (same) return [];
    throw conflict(state.finished.closing ? OperationMessages.executionClosedOtherwise : OperationMessages.executionFinished);
  }
  if (status === 'ISSUED' && executionStatus(state) !== 'WAITING_CLOSING') throw conflict(OperationMessages.executionNotClosable);
  return [finish(state, status, at, { closing: { date, externalId }, userId })];
}

function facts(data: Pick<StartData, 'executionId' | 'organizationId' | 'proposalId'>) {
  return { executionId: data.executionId, organizationId: data.organizationId, proposalId: data.proposalId };
}

function stepFacts(state: ExecutionState, at: string) {
  return { ...facts(state.started!), stepIndex: state.cursor, at };
}

const stepKind = (state: ExecutionState) => state.started!.steps[state.cursor]?.kind ?? null;

function finish(state: ExecutionState, status: FinalStatus, at: string, extra: Partial<Pick<ExecutionFinished['data'], 'rejectionStep' | 'reason' | 'closing' | 'userId'>>): ExecutionFinished {
  const started = state.started!;
  return {
    type: 'ExecutionFinished',
    data: {
      ...stepFacts(state, at),
      status,
      operationId: started.operationId,
      operationResultId: started.executionId,
      document: started.document,
      rejectionStep: extra.rejectionStep ?? null,
      reason: extra.reason ?? null,
      closing: extra.closing ?? null,
      userId: extra.userId ?? null,
    },
  };
}

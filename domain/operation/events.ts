import type { DomainEvent } from '../shared/decider.ts';
import type { EntityType } from '../pricing/terms.ts';
import type { PipelineContent, PipelineStep } from './pipeline.ts';

/** `operation-<id>`: a pipeline's versions. `execution-<id>`: one run, id = operationResultId. */
export const operationStream = (operationId: string) => `operation-${operationId}`;
export const executionStream = (executionId: string) => `execution-${executionId}`;

export const OperationEventTypes = {
  created: 'OperationCreated',
  versioned: 'OperationVersioned',
} as const;

interface VersionData {
  operationId: string;
  organizationId: string;
  version: number;
  content: PipelineContent;
  userId: string;
  createdAt: string;
}

export type OperationCreated = DomainEvent<'OperationCreated', VersionData>;
export type OperationVersioned = DomainEvent<'OperationVersioned', VersionData>;
export type OperationEvent = OperationCreated | OperationVersioned;

export const ExecutionEventTypes = {
  started: 'ExecutionStarted',
  reportRequested: 'ExecutionReportRequested',
  reportFinished: 'ExecutionReportFinished',
  offerSent: 'ExecutionOfferSent',
  offerChosen: 'ExecutionOfferChosen',
  operatorAwaited: 'ExecutionOperatorAwaited',
  approved: 'ExecutionApproved',
  firmOfferIssued: 'ExecutionFirmOfferIssued',
  contractOpened: 'ExecutionContractOpened',
  contractFormalized: 'ExecutionContractFormalized',
  collectionOpened: 'ExecutionCollectionOpened',
  collectionCompleted: 'ExecutionCollectionCompleted',
  finished: 'ExecutionFinished',
} as const;

export type ExecutionKind = 'OPERATION' | 'REPORT';
/** Final statuses end the execution (and fire the OPERATION webhook); the others are running. */
export type FinalStatus = 'APPROVED' | 'REJECTED' | 'MANUAL_ANALYSIS' | 'FAILED' | 'ISSUED' | 'CANCELED' | 'EXPIRED';
export type ExecutionStatus = 'RUNNING' | 'WAITING_OPERATOR' | 'WAITING_CUSTOMER' | 'WAITING_COLLECTION' | 'WAITING_SIGNATURE' | 'WAITING_CLOSING' | FinalStatus;
export const FINAL_STATUSES: readonly FinalStatus[] = ['APPROVED', 'REJECTED', 'MANUAL_ANALYSIS', 'FAILED', 'ISSUED', 'CANCELED', 'EXPIRED'];

/** Every execution event names its execution, tenant and proposal, so no subscriber looks them up. */
interface Facts {
  executionId: string;
  organizationId: string;
  proposalId: string;
}
type At<T> = Facts & T & { stepIndex: number; at: string };

export type ExecutionStarted = DomainEvent<
  'ExecutionStarted',
  Facts & {
    kind: ExecutionKind;
    /** The pipeline (kind OPERATION) or null (kind REPORT). */
    operationId: string | null;
    operationVersion: number | null;
    /** The pipeline or policy id the caller named. */
    targetId: string;
    document: string;
    entityType: EntityType;
    /** The steps run, frozen at the start: a later version of the pipeline does not change a running execution. */
    steps: PipelineStep[];
    userId: string;
    at: string;
  }
>;
export type ExecutionReportRequested = DomainEvent<'ExecutionReportRequested', At<{ reportId: string; policyId: string }>>;
export type ExecutionReportFinished = DomainEvent<'ExecutionReportFinished', At<{ reportId: string; status: ReportOutcome; score: number | null }>>;
export type ExecutionOfferSent = DomainEvent<'ExecutionOfferSent', At<{ offerId: string }>>;
export type ExecutionOfferChosen = DomainEvent<'ExecutionOfferChosen', At<{ offerId: string; amountCents: number; termMonths: number }>>;
export type ExecutionOperatorAwaited = DomainEvent<'ExecutionOperatorAwaited', At<{ reason: string }>>;
export type ExecutionApproved = DomainEvent<'ExecutionApproved', At<{ by: 'POLICY' | 'OPERATOR'; userId: string | null; reason: string | null }>>;
export type ExecutionFirmOfferIssued = DomainEvent<'ExecutionFirmOfferIssued', At<{ offerId: string }>>;
/** The contract was generated (a registry document) and the collection that signs it opened. */
export type ExecutionContractOpened = DomainEvent<'ExecutionContractOpened', At<{ collectionId: string; contractDocumentId: string }>>;
/** collection.signature.completed arrived for the contract's collection: the contract is formalized. */
export type ExecutionContractFormalized = DomainEvent<'ExecutionContractFormalized', At<{ collectionId: string; contractDocumentId: string; provider: string; contentHash: string }>>;
/** A COLLECTION step opened its collection (sent to the customer). */
export type ExecutionCollectionOpened = DomainEvent<'ExecutionCollectionOpened', At<{ collectionId: string; templateSlug: string }>>;
/** That collection completed: the pipeline goes on. */
export type ExecutionCollectionCompleted = DomainEvent<'ExecutionCollectionCompleted', At<{ collectionId: string }>>;
export type ExecutionFinished = DomainEvent<
  'ExecutionFinished',
  At<{
    status: FinalStatus;
    /** The legacy OPERATION webhook's names: operationId (null for kind REPORT) and operationResultId (= executionId). */
    operationId: string | null;
    operationResultId: string;
    document: string;
    /** The step kind that rejected (REJECTED only). */
    rejectionStep: string | null;
    reason: string | null;
    /** External closing (ISSUED or CANCELED through POST /operation/close). */
    closing: { date: string; externalId: string | null } | null;
    userId: string | null;
  }>
>;

/** What a finished report says to a pipeline. */
export type ReportOutcome = 'APPROVED' | 'DENIED' | 'MANUAL_ANALYSIS' | 'FAILED';

export type ExecutionEvent =
  | ExecutionStarted
  | ExecutionReportRequested
  | ExecutionReportFinished
  | ExecutionOfferSent
  | ExecutionOfferChosen
  | ExecutionOperatorAwaited
  | ExecutionApproved
  | ExecutionFirmOfferIssued
  | ExecutionContractOpened
  | ExecutionContractFormalized
  | ExecutionCollectionOpened
  | ExecutionCollectionCompleted
  | ExecutionFinished;

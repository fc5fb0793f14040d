import type { EntityType } from '../pricing/terms.ts';
import { DomainError } from '../shared/errors.ts';
import { unknownContractFields } from './contract.ts';
import { OperationMessages } from './messages.ts';

/**
 * A pipeline (an "operation" in the spec): the ordered steps a proposal goes through when it is
 * run. Every version carries the whole content, like a credit policy.
 */
export type PipelineStep =
  /** Run a credit policy on the proposal's document; the policy is chosen by the proposal's entity type. */
  | { kind: 'POLICY_REPORT'; policies: Partial<Record<EntityType, string>> }
  /** The indicative offer: a range around the requested amount (percent of it), a term range; rate from the product. */
  | { kind: 'PRE_APPROVAL'; minAmountPercent: number; maxAmountPercent: number; minTermMonths: number; maxTermMonths: number; validDays: number }
  | { kind: 'WAIT_CUSTOMER_CHOICE' }
  /** POLICY: the last report's result decides (MANUAL_ANALYSIS goes to an operator); OPERATOR: always an operator. */
  | { kind: 'FINAL_APPROVAL'; by: 'POLICY' | 'OPERATOR' }
  | { kind: 'ISSUE_FIRM_OFFER'; validDays: number }
  /** The contract: generated from `template`, signed by the customer, the proposal's participants (when asked) and `signers`. */
  | ContractStep
  | CollectionStep;

/**
 * Open a collection from one of the organization's templates for the proposal's subject, sent to
 * the customer, and wait until it completes (its answers are then the proposal's input data for
 * the steps after it); canceled or expired, the execution ends with it.
 */
export interface CollectionStep {
  kind: 'COLLECTION';
  templateSlug: string;
  /** Days the customer has before the collection expires; absent: the template's own. */
  expiryDays: number | null;
}

/** A party who signs besides the proposal's own people: the lender's representative, a witness. */
export interface ContractSigner {
  name: string;
  email: string | null;
  /** E.164. */
  phone: string | null;
}

export interface ContractStep {
  kind: 'CONTRACT_SIGNATURE';
  /** The signature item's title (what the parties see). */
  title: string;
  /** The contract's text with `{{field}}` placeholders (domain/operation/contract.ts). */
  template: string;
  signers: ContractSigner[];
  /** The proposal's participants (guarantors, partners, spouses) sign too. */
  includeParticipants: boolean;
  /** The parties sign one after another: customer, participants, then `signers`. */
  ordered: boolean;
  /** Days the parties have to sign before the collection expires. */
  expiryDays: number;
}

export type StepKind = PipelineStep['kind'];
export const STEP_KINDS: readonly StepKind[] = ['POLICY_REPORT', 'PRE_APPROVAL', 'WAIT_CUSTOMER_CHOICE', 'FINAL_APPROVAL', 'ISSUE_FIRM_OFFER', 'COLLECTION', 'CONTRACT_SIGNATURE'];

export interface PipelineContent {
  name: string;
  description: string | null;
  entityTypes: EntityType[];
  steps: PipelineStep[];
}

const SINGLE: readonly StepKind[] = ['PRE_APPROVAL', 'WAIT_CUSTOMER_CHOICE', 'FINAL_APPROVAL', 'ISSUE_FIRM_OFFER', 'CONTRACT_SIGNATURE'];

const invalid = (message: string) => new DomainError('invalid', message);

/** The rules a pipeline must follow before it can be saved (shape comes from the route's schema). */
export function validatePipeline(content: PipelineContent): void {
  if (!content.steps.length) throw invalid(OperationMessages.noSteps);
  if (new Set(content.entityTypes).size !== content.entityTypes.length) throw invalid(OperationMessages.duplicateEntityType);
  const seen = new Set<StepKind>();
  for (const step of content.steps) {
    if (SINGLE.includes(step.kind) && seen.has(step.kind)) throw invalid(OperationMessages.repeatedStep);
    switch (step.kind) {
      case 'POLICY_REPORT':
        for (const type of content.entityTypes) if (!step.policies[type]) throw invalid(OperationMessages.policyMissingForEntityType);
        if (Object.keys(step.policies).some((type) => !content.entityTypes.includes(type as EntityType))) throw invalid(OperationMessages.policyForOtherEntityType);
        break;
      case 'PRE_APPROVAL':
        if (step.minAmountPercent > step.maxAmountPercent || step.minTermMonths > step.maxTermMonths) throw invalid(OperationMessages.preApprovalRange);
        break;
      case 'WAIT_CUSTOMER_CHOICE':
        if (!seen.has('PRE_APPROVAL')) throw invalid(OperationMessages.choiceNeedsPreApproval);
        break;
      case 'FINAL_APPROVAL':
        if (step.by === 'POLICY' && !seen.has('POLICY_REPORT')) throw invalid(OperationMessages.finalApprovalByPolicyNeedsReport);
        break;
      case 'ISSUE_FIRM_OFFER':
        if (!seen.has('WAIT_CUSTOMER_CHOICE')) throw invalid(OperationMessages.firmOfferNeedsChoice);
        break;
      case 'CONTRACT_SIGNATURE': {
        // The contract states the terms the customer chose.
        if (!seen.has('WAIT_CUSTOMER_CHOICE')) throw invalid(OperationMessages.contractNeedsChoice);
        const unknown = unknownContractFields(step.template);
        if (unknown.length) throw invalid(OperationMessages.contractUnknownFields(unknown));
        break;
      }
    }
    seen.add(step.kind);
  }
}

/** The policy a POLICY_REPORT step runs for a proposal's entity type. */
export function policyFor(step: Extract<PipelineStep, { kind: 'POLICY_REPORT' }>, entityType: EntityType): string | null {
  return step.policies[entityType] ?? null;
}

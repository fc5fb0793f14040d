import { createHash } from 'node:crypto';
import { collectionStream } from '../../domain/collection/events.ts';
import type { ExecutionCommand, NextAction } from '../../domain/operation/execution-decider.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { SYSTEM_ACTOR } from '../collection/actor.ts';
import { createCollection, type App } from '../collection/commands.ts';
import { collectionEnding, contactOf } from './opened-collections.ts';

type OpenCollection = Extract<NextAction, { type: 'OPEN_COLLECTION' }>;

/**
 * The step's collection id, derived from the execution and the step: a retry after a crash
 * between creating the collection and recording it finds that collection instead of opening a
 * second one (as the contract's does, with its own prefix).
 */
export const stepCollectionId = (executionId: string, stepIndex: number) => createHash('sha256').update(`collection:${executionId}:${stepIndex}`).digest('hex').slice(0, 24);

/**
 * The COLLECTION step's work: a collection from the step's template for the proposal's subject,
 * created by SYSTEM and sent to the customer (the proposal's contact), its completion moving this
 * execution on instead of the template's own onCompleted target. A refusal (a template switched
 * off or gone, a customer without contact) comes back as a DomainError, which fails the execution
 * with its text.
 */
export async function openStepCollection(app: App, proposal: ProposalState, executionId: string, action: OpenCollection, at: string): Promise<ExecutionCommand> {
  const created = proposal.created!;
  const collectionId = stepCollectionId(executionId, action.stepIndex);
  const { templateSlug } = action.step;
  const existing = (await app.store.readStream(collectionStream(collectionId), { maxCount: 1 }))[0];
  if (!existing) {
    const customer = { name: created.contact?.name?.trim() || created.name, ...contactOf(created.contact) };
    await createCollection(
      app,
      { organizationId: created.organizationId, userId: '', permissions: new Set() },
      {
        templateSlug,
        subject: { name: created.name, document: created.document },
        recipients: [customer],
        send: true,
        ...(action.step.expiryDays !== null && { expiryDays: action.step.expiryDays }),
        openedByExecution: true,
      },
      { actor: SYSTEM_ACTOR, collectionId },
    );
  }
  return { type: 'RecordCollectionOpened', collectionId, templateSlug, at };
}

/** What the step's collection says to the execution: completed, canceled, expired, or nothing yet (null). */
export async function stepCollectionOutcome(app: Pick<App, 'store'>, collectionId: string, at: string): Promise<ExecutionCommand | null> {
  const ending = await collectionEnding(app, collectionId);
  if (ending?.kind === 'COMPLETED') return { type: 'RecordCollectionCompleted', collectionId, at };
  if (ending?.kind === 'CANCELED' || ending?.kind === 'EXPIRED') return { type: 'RecordCollectionEnded', collectionId, outcome: ending.kind, reason: ending.reason, at };
  return null;
}

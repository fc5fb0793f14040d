import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ExecutionEvent } from '../../domain/operation/events.ts';
import { executionDecider, executionStatus, nextAction, type ExecutionCommand } from '../../domain/operation/execution-decider.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { CollectionStep, PipelineStep } from '../../domain/operation/pipeline.ts';
import { operationDecider } from '../../domain/operation/decider.ts';
import { fold } from '../../domain/shared/decider.ts';
import { given } from '../support/decider.ts';
import { fullPipeline, POLICY } from './fixtures.ts';

const test = suite('COLLECTION step: decider');
const ORG = 'a'.repeat(24);
const EXEC = 'e'.repeat(24);
const COLLECTION = '4'.repeat(24);
const OTHER = '6'.repeat(24);
const AT = '2026-11-23T14:00:00.000Z';
const facts = { executionId: EXEC, organizationId: ORG, proposalId: 'f'.repeat(24) };
const STEP: CollectionStep = { kind: 'COLLECTION', templateSlug: 'ficha-pf', expiryDays: null };
const report: PipelineStep = { kind: 'POLICY_REPORT', policies: { PERSON: POLICY } };

const start = (steps: PipelineStep[]): ExecutionEvent[] =>
  executionDecider.decide(
    {
      type: 'StartExecution',
      ...facts,
      kind: 'OPERATION',
      operationId: 'o'.repeat(24),
      operationVersion: 1,
      targetId: 'o'.repeat(24),
      document: '12345678909',
      entityType: 'PERSON',
      steps,
      userId: 'u',
      at: AT,
    },
    executionDecider.initialState(),
  );
const opened: ExecutionCommand = { type: 'RecordCollectionOpened', collectionId: COLLECTION, templateSlug: 'ficha-pf', at: AT };
const openedEvent = (stepIndex = 0): ExecutionEvent => ({ type: 'ExecutionCollectionOpened', data: { ...facts, stepIndex, at: AT, collectionId: COLLECTION, templateSlug: 'ficha-pf' } });
const completed: ExecutionCommand = { type: 'RecordCollectionCompleted', collectionId: COLLECTION, at: AT };
const completedEvent: ExecutionEvent = { type: 'ExecutionCollectionCompleted', data: { ...facts, stepIndex: 0, at: AT, collectionId: COLLECTION } };
const finished = (status: 'APPROVED' | 'CANCELED' | 'EXPIRED', reason: string | null, stepIndex = 0): ExecutionEvent => ({
  type: 'ExecutionFinished',
  data: { ...facts, stepIndex, at: AT, status, operationId: 'o'.repeat(24), operationResultId: EXEC, document: '12345678909', rejectionStep: null, reason, closing: null, userId: null },
});

test('a pipeline may open collections, before or after its report, more than once', () => {
  const content = { ...fullPipeline, steps: [STEP, ...fullPipeline.steps, { ...STEP, templateSlug: 'kyc-refresh' }] };
  assert.is(operationDecider.decide({ type: 'CreateOperation', operationId: 'o'.repeat(24), organizationId: ORG, userId: 'u', content, at: AT }, operationDecider.initialState()).length, 1);
});

test('the step opens its collection, then the execution waits for it', () => {
  const history = start([STEP, report]);
  assert.equal(nextAction(fold(executionDecider, history)), { type: 'OPEN_COLLECTION', step: STEP, stepIndex: 0 });
  given(executionDecider, history).when(opened).then([openedEvent()]);
  const waiting = fold(executionDecider, [...history, openedEvent()]);
  assert.is(executionStatus(waiting), 'WAITING_COLLECTION');
  assert.is(nextAction(waiting), null);
  given(executionDecider, [...history, openedEvent()])
    .when(opened)
    .then([], 'opened once');
});

test('its completion moves the pipeline on to the report; as the last step it ends APPROVED', () => {
  const history = [...start([STEP, report]), openedEvent()];
  given(executionDecider, history).when(completed).then([completedEvent]);
  assert.equal(nextAction(fold(executionDecider, [...history, completedEvent])), { type: 'REQUEST_REPORT', policyId: POLICY });
  given(executionDecider, [...history, completedEvent])
    .when(completed)
    .then([], 'a repeated completion decides nothing');
  const alone = [...start([STEP]), openedEvent()];
  given(executionDecider, alone)
    .when(completed)
    .then([completedEvent, finished('APPROVED', null, 1)], 'past the last step');
});

test('canceled or expired, the execution ends with it; another collection says nothing', () => {
  const history = [...start([STEP, report]), openedEvent()];
  given(executionDecider, history)
    .when({ type: 'RecordCollectionEnded', collectionId: COLLECTION, outcome: 'CANCELED', reason: 'Cliente desistiu', at: AT })
    .then([finished('CANCELED', OperationMessages.collectionCanceled('Cliente desistiu'))]);
  given(executionDecider, history)
    .when({ type: 'RecordCollectionEnded', collectionId: COLLECTION, outcome: 'EXPIRED', reason: null, at: AT })
    .then([finished('EXPIRED', OperationMessages.collectionExpired)]);
  given(executionDecider, history)
    .when({ ...completed, collectionId: OTHER })
    .then([]);
  given(executionDecider, start([STEP, report]))
    .when(completed)
    .then([], 'nothing opened yet');
});

test.run();

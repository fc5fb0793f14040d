import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fold } from '../../domain/shared/decider.ts';
import type { ExecutionEvent } from '../../domain/operation/events.ts';
import { executionDecider, executionStatus, nextAction, reportRunSteps, type ExecutionCommand } from '../../domain/operation/execution-decider.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { PipelineStep } from '../../domain/operation/pipeline.ts';
import { given } from '../support/decider.ts';
import { fullPipeline, POLICY } from './fixtures.ts';

const test = suite('execution decider');
const ORG = 'a'.repeat(24);
const EXEC = 'e'.repeat(24);
const PROPOSAL = 'f'.repeat(24);
const REPORT = '1'.repeat(24);
const OFFER = '2'.repeat(24);
const FIRM = '3'.repeat(24);
const AT = '2026-11-23T14:00:00.000Z';
const facts = { executionId: EXEC, organizationId: ORG, proposalId: PROPOSAL };

function start(steps: PipelineStep[] = fullPipeline.steps): ExecutionCommand {
  return {
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
  };
}

/** Run commands one after the other, each on the state the previous left: the events of all. */
function run(commands: ExecutionCommand[], history: ExecutionEvent[] = []): ExecutionEvent[] {
  const events = [...history];
  for (const command of commands) events.push(...executionDecider.decide(command, fold(executionDecider, events)));
  return events;
}
const stateOf = (events: ExecutionEvent[]) => fold(executionDecider, events);
const types = (events: ExecutionEvent[]) => events.map((e) => e.type);
const finished = (events: ExecutionEvent[]) => events.find((e) => e.type === 'ExecutionFinished')?.data as Record<string, unknown> | undefined;

const reportAsked: ExecutionCommand = { type: 'RecordReport', reportId: REPORT, policyId: POLICY, at: AT };
const reportSays = (status: 'APPROVED' | 'DENIED' | 'MANUAL_ANALYSIS' | 'FAILED'): ExecutionCommand => ({ type: 'RecordReportResult', reportId: REPORT, status, score: 700, at: AT });
const offerSent: ExecutionCommand = { type: 'RecordOfferSent', offerId: OFFER, at: AT };
const chosen: ExecutionCommand = { type: 'RecordOfferChosen', offerId: OFFER, amountCents: 500_000, termMonths: 12, at: AT };
const finalApproval: ExecutionCommand = { type: 'DecideFinalApproval', at: AT };
const firm: ExecutionCommand = { type: 'RecordFirmOffer', offerId: FIRM, at: AT };
const operator = (approved: boolean, organizationId = ORG): ExecutionCommand => ({ type: 'DecideAsOperator', organizationId, approved, userId: 'op', reason: 'ok', at: AT });
const close = (status: 'ISSUED' | 'CANCELED', date = '2026-11-30', organizationId = ORG): ExecutionCommand => ({
  type: 'CloseExecution',
  organizationId,
  status,
  date,
  externalId: 'X1',
  userId: 'u',
  at: AT,
});

test('the whole pipeline: report, indicative offer, choice, approval by policy, firm offer, closing ISSUED', () => {
  let events = run([start()]);
  assert.equal(nextAction(stateOf(events)), { type: 'REQUEST_REPORT', policyId: POLICY });
  events = run([reportAsked], events);
  assert.is(nextAction(stateOf(events)), null, 'waits for the report');
  events = run([reportSays('APPROVED')], events);
  assert.is(nextAction(stateOf(events))?.type, 'SEND_OFFER');
  events = run([offerSent], events);
  assert.is(executionStatus(stateOf(events)), 'WAITING_CUSTOMER');
  assert.is(nextAction(stateOf(events)), null, 'waits for the customer');
  events = run([chosen], events);
  assert.is(nextAction(stateOf(events))?.type, 'DECIDE_FINAL');
  events = run([finalApproval], events);
  assert.equal(nextAction(stateOf(events)), { type: 'ISSUE_FIRM_OFFER', step: fullPipeline.steps[4], chosen: { offerId: OFFER, amountCents: 500_000, termMonths: 12 } });
  events = run([firm], events);
  assert.is(executionStatus(stateOf(events)), 'WAITING_CLOSING');
  events = run([close('ISSUED')], events);
  assert.equal(types(events), [
    'ExecutionStarted',
    'ExecutionReportRequested',
    'ExecutionReportFinished',
    'ExecutionOfferSent',
    'ExecutionOfferChosen',
    'ExecutionApproved',
    'ExecutionFirmOfferIssued',
    'ExecutionFinished',
  ]);
  assert.equal(finished(events), {
    ...facts,
    stepIndex: 5,
    at: AT,
    status: 'ISSUED',
    operationId: 'o'.repeat(24),
    operationResultId: EXEC,
    document: '12345678909',
    rejectionStep: null,
    reason: null,
    closing: { date: '2026-11-30', externalId: 'X1' },
    userId: 'u',
  });
});

test('repeated process-manager commands decide nothing (a replay after a restart)', () => {
  const events = run([start(), reportAsked, reportSays('APPROVED'), offerSent, chosen]);
  for (const command of [reportAsked, reportSays('APPROVED'), offerSent, chosen, firm]) given(executionDecider, events).when(command).then([]);
});

test('a denied report rejects at POLICY_REPORT; a failed one fails', () => {
  assert.equal(finished(run([start(), reportAsked, reportSays('DENIED')]))?.rejectionStep, 'POLICY_REPORT');
  assert.is(finished(run([start(), reportAsked, reportSays('FAILED')]))?.status, 'FAILED');
});

test('a report in manual analysis waits for an operator, who approves or rejects', () => {
  const waiting = run([start(), reportAsked, reportSays('MANUAL_ANALYSIS')]);
  assert.is(executionStatus(stateOf(waiting)), 'WAITING_OPERATOR');
  assert.is(nextAction(stateOf(waiting)), null);
  const approved = run([operator(true)], waiting);
  assert.is(nextAction(stateOf(approved))?.type, 'SEND_OFFER');
  const rejected = finished(run([operator(false)], waiting));
  assert.is(rejected?.status, 'REJECTED');
  assert.is(rejected?.rejectionStep, 'POLICY_REPORT');
});

test('final approval by operator; by policy after a manual analysis also asks the operator', () => {
  const byOperator = [fullPipeline.steps[0]!, fullPipeline.steps[1]!, fullPipeline.steps[2]!, { kind: 'FINAL_APPROVAL', by: 'OPERATOR' } as const, fullPipeline.steps[4]!];
  const waiting = run([start(byOperator), reportAsked, reportSays('APPROVED'), offerSent, chosen, finalApproval]);
  assert.is(executionStatus(stateOf(waiting)), 'WAITING_OPERATOR');
  assert.is(finished(run([operator(false)], waiting))?.rejectionStep, 'FINAL_APPROVAL');
  assert.is(executionStatus(stateOf(run([operator(true), firm], waiting))), 'WAITING_CLOSING');
  const manual = run([start(), reportAsked, reportSays('MANUAL_ANALYSIS'), operator(true), offerSent, chosen, finalApproval]);
  assert.is(executionStatus(stateOf(manual)), 'WAITING_OPERATOR');
});

test('a pipeline without a firm offer ends APPROVED with its last step', () => {
  const events = run([start([{ kind: 'POLICY_REPORT', policies: { PERSON: POLICY } }]), reportAsked, reportSays('APPROVED')]);
  assert.is(finished(events)?.status, 'APPROVED');
});

test('kind REPORT: started with its report; the report decision is the final status', () => {
  const startReport: ExecutionCommand = {
    ...(start(reportRunSteps('PERSON', POLICY)) as Extract<ExecutionCommand, { type: 'StartExecution' }>),
    kind: 'REPORT',
    operationId: null,
    operationVersion: null,
    report: { reportId: REPORT, policyId: POLICY },
  };
  const events = run([startReport]);
  assert.equal(types(events), ['ExecutionStarted', 'ExecutionReportRequested']);
  assert.is(finished(run([reportSays('MANUAL_ANALYSIS')], events))?.status, 'MANUAL_ANALYSIS');
  assert.is(finished(run([reportSays('APPROVED')], events))?.status, 'APPROVED');
});

test('closing: the same call again decides nothing; another date or status is a conflict', () => {
  const closed = run([start(), reportAsked, reportSays('APPROVED'), offerSent, chosen, finalApproval, firm, close('ISSUED')]);
  given(executionDecider, closed).when(close('ISSUED')).then([]);
  given(executionDecider, closed).when(close('ISSUED', '2026-12-01')).thenError('conflict', OperationMessages.executionClosedOtherwise);
  given(executionDecider, closed).when(close('CANCELED')).thenError('conflict', OperationMessages.executionClosedOtherwise);
});

test('closing refusals: ISSUED before the firm offer, a rejected execution, another organization', () => {
  const running = run([start(), reportAsked]);
  given(executionDecider, running).when(close('ISSUED')).thenError('conflict', OperationMessages.executionNotClosable);
  assert.is(finished(run([close('CANCELED')], running))?.status, 'CANCELED');
  const rejected = run([reportSays('DENIED')], running);
  given(executionDecider, rejected).when(close('CANCELED')).thenError('conflict', OperationMessages.executionFinished);
  given(executionDecider, running)
    .when(close('CANCELED', '2026-11-30', 'd'.repeat(24)))
    .thenError('not_found', OperationMessages.executionNotFound);
  given(executionDecider).when(close('CANCELED')).thenError('not_found', OperationMessages.executionNotFound);
});

test('operator refusals: not waiting, finished, another organization', () => {
  const running = run([start(), reportAsked]);
  given(executionDecider, running).when(operator(true)).thenError('conflict', OperationMessages.executionNotWaitingOperator);
  given(executionDecider, run([reportSays('DENIED')], running))
    .when(operator(true))
    .thenError('conflict', OperationMessages.executionFinished);
  given(executionDecider, running)
    .when(operator(true, 'd'.repeat(24)))
    .thenError('not_found', OperationMessages.executionNotFound);
});

test('a choice of another offer, or before the offer, is refused; a start twice too', () => {
  const sent = run([start(), reportAsked, reportSays('APPROVED'), offerSent]);
  given(executionDecider, sent)
    .when({ ...chosen, offerId: FIRM } as ExecutionCommand)
    .thenError('conflict', OperationMessages.executionNotWaitingChoice);
  given(executionDecider, run([start()]))
    .when(chosen)
    .thenError('conflict', OperationMessages.executionNotWaitingChoice);
  given(executionDecider, run([start()]))
    .when(start())
    .thenError('conflict', OperationMessages.executionRunning);
});

test('failing: a running execution ends FAILED, a finished one is left as it is', () => {
  const failedCommand: ExecutionCommand = { type: 'FailExecution', reason: 'x', at: AT };
  assert.is(finished(run([start(), failedCommand]))?.status, 'FAILED');
  given(executionDecider, run([start(), reportAsked, reportSays('DENIED')]))
    .when(failedCommand)
    .then([]);
});

test('an offer that lapsed ends the execution EXPIRED while it waits for the choice; otherwise nothing', () => {
  const waiting = run([start(), reportAsked, reportSays('APPROVED'), offerSent]);
  const lapsed: ExecutionCommand = { type: 'RecordOfferExpired', offerId: OFFER, at: AT };
  const events = run([lapsed], waiting);
  assert.equal([executionStatus(stateOf(events)), finished(events)?.reason, finished(events)?.stepIndex], ['EXPIRED', OperationMessages.offerExpiredWithoutChoice, 2]);
  given(executionDecider, events).when(lapsed).thenError('conflict', OperationMessages.executionFinished);
  given(executionDecider, waiting)
    .when({ ...lapsed, offerId: FIRM })
    .then([], 'another offer decides nothing');
  given(executionDecider, run([chosen], waiting))
    .when(lapsed)
    .then([], 'after the choice it cannot lapse');
});

test.run();

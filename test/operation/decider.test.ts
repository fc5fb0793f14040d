import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { operationDecider } from '../../domain/operation/decider.ts';
import type { OperationEvent } from '../../domain/operation/events.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { PipelineContent } from '../../domain/operation/pipeline.ts';
import { contractStep, fullPipeline, POLICY } from './fixtures.ts';
import { given } from '../support/decider.ts';

const test = suite('operation (pipeline) decider');
const ORG = 'a'.repeat(24);
const ID = 'b'.repeat(24);
const AT = '2026-11-23T14:00:00.000Z';

const create = (content: PipelineContent) => ({ type: 'CreateOperation' as const, operationId: ID, organizationId: ORG, userId: 'u', content, at: AT });
const version = (content: PipelineContent, organizationId = ORG) => ({ type: 'CreateOperationVersion' as const, operationId: ID, organizationId, userId: 'u', content, at: AT });
const created: OperationEvent = { type: 'OperationCreated', data: { operationId: ID, organizationId: ORG, version: 1, content: fullPipeline, userId: 'u', createdAt: AT } };

test('create: version 1 with the whole content', () => {
  given(operationDecider).when(create(fullPipeline)).then([created]);
});

test('create twice: conflict', () => {
  given(operationDecider, [created]).when(create(fullPipeline)).thenError('conflict', OperationMessages.operationAlreadyExists);
});

test('a changed content is version 2; an unchanged one (any key order) makes none', () => {
  const renamed = { ...fullPipeline, name: 'Outro' };
  given(operationDecider, [created])
    .when(version(renamed))
    .then([{ type: 'OperationVersioned', data: { operationId: ID, organizationId: ORG, version: 2, content: renamed, userId: 'u', createdAt: AT } }]);
  const reordered = { steps: fullPipeline.steps, entityTypes: fullPipeline.entityTypes, description: null, name: fullPipeline.name };
  given(operationDecider, [created]).when(version(reordered)).then([]);
});

test("a version of an absent or another organization's pipeline: not found", () => {
  given(operationDecider).when(version(fullPipeline)).thenError('not_found', OperationMessages.operationNotFound);
  given(operationDecider, [created])
    .when(version(fullPipeline, 'd'.repeat(24)))
    .thenError('not_found', OperationMessages.operationNotFound);
});

const refusals: Array<[string, PipelineContent, string]> = [
  ['no steps', { ...fullPipeline, steps: [] }, OperationMessages.noSteps],
  ['an entity type twice', { ...fullPipeline, entityTypes: ['PERSON', 'PERSON'] }, OperationMessages.duplicateEntityType],
  ['a contract without a choice before it', { ...fullPipeline, steps: [fullPipeline.steps[0]!, contractStep()] }, OperationMessages.contractNeedsChoice],
  [
    'a contract with unknown fields',
    { ...fullPipeline, steps: [...fullPipeline.steps, contractStep({ template: '{{nome}} {{valr}} {{ cpf }} {{valr}}' })] },
    OperationMessages.contractUnknownFields(['valr', 'cpf']),
  ],
  ['two contract steps', { ...fullPipeline, steps: [...fullPipeline.steps, contractStep(), contractStep()] }, OperationMessages.repeatedStep],
  ['a policy missing for a served entity type', { ...fullPipeline, entityTypes: ['PERSON', 'COMPANY'] }, OperationMessages.policyMissingForEntityType],
  ['a policy for an entity type not served', { ...fullPipeline, steps: [{ kind: 'POLICY_REPORT', policies: { PERSON: POLICY, COMPANY: POLICY } }] }, OperationMessages.policyForOtherEntityType],
  [
    'a pre-approval range upside down',
    { ...fullPipeline, steps: [{ kind: 'PRE_APPROVAL', minAmountPercent: 90, maxAmountPercent: 50, minTermMonths: 1, maxTermMonths: 2, validDays: 1 }] },
    OperationMessages.preApprovalRange,
  ],
  ['a choice without pre-approval', { ...fullPipeline, steps: [{ kind: 'WAIT_CUSTOMER_CHOICE' }] }, OperationMessages.choiceNeedsPreApproval],
  ['approval by policy without a report', { ...fullPipeline, steps: [{ kind: 'FINAL_APPROVAL', by: 'POLICY' }] }, OperationMessages.finalApprovalByPolicyNeedsReport],
  ['a firm offer without a choice', { ...fullPipeline, steps: [{ kind: 'ISSUE_FIRM_OFFER', validDays: 1 }] }, OperationMessages.firmOfferNeedsChoice],
  ['a single step twice', { ...fullPipeline, steps: [...fullPipeline.steps, { kind: 'FINAL_APPROVAL', by: 'OPERATOR' }] }, OperationMessages.repeatedStep],
];

for (const [name, content, message] of refusals) {
  test(`refused at definition: ${name}`, () => {
    given(operationDecider).when(create(content)).thenError('invalid', message);
    given(operationDecider, [created]).when(version(content)).thenError('invalid', message);
  });
}

test('approval by operator needs no report', () => {
  const events = given(operationDecider)
    .when(create({ ...fullPipeline, steps: [{ kind: 'FINAL_APPROVAL', by: 'OPERATOR' }] }))
    .decided();
  assert.is(events.length, 1);
});

test.run();

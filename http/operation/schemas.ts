import Type, { type Static, type TSchema } from 'typebox';
import type { PipelineContent, PipelineStep } from '../../domain/operation/pipeline.ts';
import { ObjectIdSchema } from '../route.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });
const EntityType = Type.Union([Type.Literal('COMPANY'), Type.Literal('PERSON')]);
const Percent = Type.Integer({ minimum: 1, maximum: 1000, description: 'percent of the requested amount' });
const Months = Type.Integer({ minimum: 1, maximum: 600 });
const Days = Type.Integer({ minimum: 1, maximum: 365 });

const Signer = Type.Object({
  name: Type.String({ minLength: 2, maxLength: 120 }),
  email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
  phone: Type.Optional(Nullable(Type.String({ pattern: '^\\+[1-9][0-9]{7,14}$', description: 'E.164' }))),
});

const Step = Type.Union(
  [
    Type.Object({
      kind: Type.Literal('POLICY_REPORT'),
      policies: Type.Object({ COMPANY: Type.Optional(ObjectIdSchema()), PERSON: Type.Optional(ObjectIdSchema()) }, { description: 'the credit policy per entity type served' }),
    }),
    Type.Object({
      kind: Type.Literal('PRE_APPROVAL'),
      minAmountPercent: Percent,
      maxAmountPercent: Percent,
      minTermMonths: Months,
      maxTermMonths: Months,
      validDays: Days,
    }),
    Type.Object({ kind: Type.Literal('WAIT_CUSTOMER_CHOICE') }),
    Type.Object({ kind: Type.Literal('FINAL_APPROVAL'), by: Type.Union([Type.Literal('POLICY'), Type.Literal('OPERATOR')]) }),
    Type.Object({ kind: Type.Literal('ISSUE_FIRM_OFFER'), validDays: Days }),
    Type.Object(
      {
        kind: Type.Literal('CONTRACT_SIGNATURE'),
        title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the signature item\'s title; default "Assinatura do contrato"' })),
        template: Type.String({ minLength: 1, maxLength: 50_000, description: 'the contract text; {{field}} placeholders (docs/operations.md) are filled from the proposal' }),
        signers: Type.Optional(Type.Array(Signer, { maxItems: 10, description: 'parties who sign besides the customer and participants' })),
        includeParticipants: Type.Optional(Type.Boolean({ description: "the proposal's participants sign too (default true)" })),
        ordered: Type.Optional(Type.Boolean({ description: 'parties sign one after another (default false)' })),
        expiryDays: Type.Optional(Days),
      },
      { description: 'generate the contract PDF and collect the joint signature of the parties' },
    ),
    Type.Object(
      {
        kind: Type.Literal('COLLECTION'),
        templateSlug: Type.String({ pattern: '^[A-Za-z0-9_-]{1,120}$', description: "one of the organization's collection templates" }),
        expiryDays: Type.Optional(Days),
      },
      { description: "open a collection from the template for the proposal's subject, sent to the customer, and wait until it completes" },
    ),
  ],
  { errorMessage: 'each step must be one of POLICY_REPORT, PRE_APPROVAL, WAIT_CUSTOMER_CHOICE, FINAL_APPROVAL, ISSUE_FIRM_OFFER, COLLECTION, CONTRACT_SIGNATURE with its fields' },
);

export const OperationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  entityTypes: Type.Array(EntityType, { minItems: 1, maxItems: 2 }),
  steps: Type.Array(Step, { maxItems: 20 }),
});
export type OperationBody = Static<typeof OperationBody>;

/** A step as the pipeline keeps it: the contract step's optional fields with their defaults, so every version says them. */
function stepOf(step: OperationBody['steps'][number]): PipelineStep {
  if (step.kind === 'COLLECTION') return { kind: 'COLLECTION', templateSlug: step.templateSlug, expiryDays: step.expiryDays ?? null };
  if (step.kind !== 'CONTRACT_SIGNATURE') return step as PipelineStep;
  return {
    kind: 'CONTRACT_SIGNATURE',
    title: step.title?.trim() || CONTRACT_DEFAULTS.title,
    template: step.template,
    signers: (step.signers ?? []).map((s) => ({ name: s.name.trim(), email: s.email?.trim().toLowerCase() || null, phone: s.phone ?? null })),
    includeParticipants: step.includeParticipants ?? CONTRACT_DEFAULTS.includeParticipants,
    ordered: step.ordered ?? CONTRACT_DEFAULTS.ordered,
    expiryDays: step.expiryDays ?? CONTRACT_DEFAULTS.expiryDays,
  };
}

const CONTRACT_DEFAULTS = { title: 'Assinatura do contrato', includeParticipants: true, ordered: false, expiryDays: 15 } as const;

export function contentOf(body: OperationBody): PipelineContent {
  return { name: body.name.trim(), description: body.description ?? null, entityTypes: body.entityTypes, steps: body.steps.map(stepOf) };
}

export const OperationSchema = Type.Object({
  id: Type.String(),
  version: Type.Integer(),
  name: Type.String(),
  description: Nullable(Type.String()),
  entityTypes: Type.Array(EntityType),
  steps: Type.Array(Type.Object({ kind: Type.String() }, { additionalProperties: true })),
  createdBy: Type.String(),
  versionCreatedAt: DateTime,
});

const StepView = Type.Object({
  index: Type.Integer(),
  kind: Type.String(),
  status: Type.String({ description: 'PENDING, RUNNING, WAITING, DONE, REJECTED, FAILED, CANCELED or EXPIRED' }),
  startedAt: Nullable(DateTime),
  finishedAt: Nullable(DateTime),
});

export const ExecutionSchema = Type.Object(
  {
    operationResultId: Type.String(),
    proposalId: Type.String(),
    kind: Type.Union([Type.Literal('OPERATION'), Type.Literal('REPORT')]),
    operationId: Nullable(Type.String()),
    operationVersion: Nullable(Type.Integer()),
    targetId: Type.String(),
    document: Type.String(),
    entityType: Type.String(),
    status: Type.String({
      description: 'RUNNING, WAITING_OPERATOR, WAITING_CUSTOMER, WAITING_COLLECTION, WAITING_SIGNATURE, WAITING_CLOSING; final: APPROVED, REJECTED, MANUAL_ANALYSIS, FAILED, ISSUED, CANCELED, EXPIRED',
    }),
    steps: Type.Array(StepView),
    reportIds: Type.Array(Type.String()),
    indicativeOfferId: Nullable(Type.String()),
    chosen: Nullable(Type.Object({ offerId: Type.String(), amountCents: Type.Integer(), termMonths: Type.Integer() })),
    firmOfferId: Nullable(Type.String()),
    decision: Nullable(Type.Union([Type.Literal('APPROVED'), Type.Literal('REJECTED')])),
    rejectionStep: Nullable(Type.String()),
    closing: Nullable(Type.Object({ date: Type.String(), externalId: Nullable(Type.String()) })),
    contract: Nullable(
      Type.Object(
        { collectionId: Type.String(), contractDocumentId: Type.String({ description: 'registry document of the subject: the generated PDF' }), formalizedAt: Nullable(DateTime) },
        { description: 'CONTRACT_SIGNATURE: the contract and the collection that signs it; formalizedAt when collection.signature.completed arrived' },
      ),
    ),
    collections: Type.Array(Type.Object({ stepIndex: Type.Integer(), collectionId: Type.String(), templateSlug: Type.String(), completedAt: Nullable(DateTime) }), {
      description: 'COLLECTION steps: the collection each opened; completedAt once it completed',
    }),
    startedBy: Type.String(),
    startedAt: DateTime,
    decidedAt: Nullable(DateTime),
    finishedAt: Nullable(DateTime),
    updatedAt: DateTime,
  },
  { description: 'one run of a pipeline (or of a single policy report) on a proposal' },
);

export const IdParams = Type.Object({ id: ObjectIdSchema() });
export const VersionParams = Type.Object({ id: ObjectIdSchema(), version: Type.Integer({ minimum: 1, maximum: 100_000 }) });

export const RunBody = Type.Object({
  kind: Type.Union([Type.Literal('OPERATION'), Type.Literal('REPORT')], { errorMessage: 'kind must be one of the following values: OPERATION, REPORT' }),
  targetId: ObjectIdSchema(),
});

export const RunReply = Type.Object({
  operationResultId: Type.String(),
  proposalId: Type.String(),
  kind: Type.String(),
  targetId: Type.String(),
  reportId: Nullable(Type.String()),
  status: Type.String(),
});

export const DecisionBody = Type.Object({
  approved: Type.Boolean(),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
});

export const CloseBody = Type.Object({
  operationResultId: ObjectIdSchema(),
  status: Type.Union([Type.Literal('ISSUED'), Type.Literal('CANCELED')], { errorMessage: 'status must be one of the following values: ISSUED, CANCELED' }),
  date: Type.String({ maxLength: 10, description: 'YYYY-MM-DD, a day that exists' }),
  externalId: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
});

export const CloseReply = Type.Object({
  operationResultId: Type.String(),
  proposalId: Type.String(),
  status: Type.Union([Type.Literal('ISSUED'), Type.Literal('CANCELED')]),
  date: Type.String(),
  externalId: Nullable(Type.String()),
});

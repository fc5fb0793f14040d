import Type, { type TSchema } from 'typebox';
import { PRODUCT_KINDS } from '../../domain/catalog/product.ts';
import { AMORTIZATION_MODELS, ENTITY_TYPES } from '../../domain/pricing/terms.ts';
import { PARTICIPANT_ROLES, PROPOSAL_ORIGINS } from '../../domain/proposal/events.ts';
import { DashboardMessages } from '../../domain/dashboard/messages.ts';
import { PROPOSAL_STATUSES } from '../../domain/proposal/statuses.ts';
import { ChannelOrderSchema } from '../messaging/schemas.ts';
import { ObjectIdSchema } from '../route.ts';
import { MAX_INT32 } from '../validation.ts';

const Nullable = <T extends TSchema>(schema: T, options: { description?: string } = {}) => Type.Union([schema, Type.Null()], options);
const DateTime = Type.String({ format: 'date-time' });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Cents = Type.Integer({ minimum: 0, maximum: MAX_INT32 * 100, description: 'cents' });
const Months = Type.Integer({ minimum: 1, maximum: 600, description: 'months' });
const Enum = <T extends string>(values: readonly T[]) => Type.Enum(values as T[]);
const DAY_OR_INSTANT = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2}))?$';

export const ContactSchema = Type.Object({
  name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  email: Type.Optional(Nullable(Type.String({ maxLength: 320 }))),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 32 }))),
  channelOrder: Type.Optional(ChannelOrderSchema),
});
const ContactView = Nullable(
  Type.Object({
    name: Nullable(Type.String()),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    channelOrder: Type.Optional(Type.Array(Type.String(), { description: "ours: this person's own channel order (offers); absent: the organization's" })),
  }),
);

export const ParticipantBody = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 30, description: 'CPF or CNPJ, masked or not' }),
  name: Text(200),
  role: Enum(PARTICIPANT_ROLES),
  contact: Type.Optional(ContactSchema),
});
export const ParticipantPatch = Type.Partial(ParticipantBody);

export const CreateProposalBody = Type.Object({
  document: Type.String({ minLength: 1, maxLength: 30, description: 'CPF or CNPJ, masked or not' }),
  name: Text(200),
  productKey: Text(120),
  requestedAmountCents: Type.Optional(Cents),
  requestedTermMonths: Type.Optional(Months),
  contact: Type.Optional(ContactSchema),
  kind: Type.Optional(Enum(PRODUCT_KINDS)),
  origin: Type.Optional(Enum(PROPOSAL_ORIGINS)),
  portfolioId: Type.Optional(ObjectIdSchema()),
  // Ids like every id here (24 hex): the dashboard filters on them and refuses anything else.
  correspondentId: Type.Optional(ObjectIdSchema(DashboardMessages.badCorrespondent)),
  agentId: Type.Optional(ObjectIdSchema(DashboardMessages.badAgent)),
  externalId: Type.Optional(Text(200)),
  participants: Type.Optional(Type.Array(ParticipantBody, { maxItems: 50 })),
});

export const ProposalListQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 10_000, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'document digits (prefix), name (part) or externalId (exact)' })),
  status: Type.Optional(Type.String({ pattern: `^(${PROPOSAL_STATUSES.join('|')})(,(${PROPOSAL_STATUSES.join('|')}))*$`, description: 'comma separated statuses' })),
  productKey: Type.Optional(Text(120)),
  portfolioId: Type.Optional(ObjectIdSchema()),
  origin: Type.Optional(Enum(PROPOSAL_ORIGINS)),
  createdFrom: Type.Optional(Type.String({ pattern: DAY_OR_INSTANT, description: 'created at or after (ISO 8601)' })),
  createdTo: Type.Optional(Type.String({ pattern: DAY_OR_INSTANT, description: 'created at or before (ISO 8601)' })),
});

export const ProposalParams = Type.Object({ id: ObjectIdSchema() });
export const ParticipantParams = Type.Object({ id: ObjectIdSchema(), participantId: ObjectIdSchema() });
export const OfferParams = Type.Object({ id: ObjectIdSchema(), offerId: ObjectIdSchema() });

export const StatusBody = Type.Object({ status: Enum(PROPOSAL_STATUSES), reason: Type.Optional(Type.String({ maxLength: 500 })) });
export const ChooseBody = Type.Object({ amountCents: Cents, termMonths: Months, reason: Type.Optional(Type.String({ maxLength: 500 })) });

const RateSchema = Nullable(Type.Object({ value: Type.String(), period: Enum(['MONTH', 'YEAR']) }));

export const ProposalRowSchema = Type.Object({
  id: Type.String(),
  createdAt: DateTime,
  document: Type.String(),
  name: Type.String(),
  entityType: Enum(ENTITY_TYPES),
  kind: Enum(PRODUCT_KINDS),
  origin: Enum(PROPOSAL_ORIGINS),
  correspondentId: Nullable(Type.String()),
  agentId: Nullable(Type.String()),
  externalId: Nullable(Type.String()),
  productKey: Type.String(),
  productName: Type.String(),
  portfolioId: Nullable(Type.String()),
  portfolioName: Nullable(Type.String()),
  status: Enum(PROPOSAL_STATUSES),
  statusChangedAt: DateTime,
  requestedAmountCents: Nullable(Type.Integer()),
  requestedTermMonths: Nullable(Type.Integer()),
});
export const ProposalPageSchema = Type.Object({ total: Type.Integer(), items: Type.Array(ProposalRowSchema, { description: 'newest first' }) });

export const ParticipantSchema = Type.Object({
  id: Type.String(),
  document: Type.String(),
  entityType: Enum(ENTITY_TYPES),
  name: Type.String(),
  role: Enum(PARTICIPANT_ROLES),
  contact: ContactView,
});

const nullableOnOldChoices = { description: 'null on choices recorded before their simulation was stored' };
export const ChosenTermsSchema = Type.Object(
  {
    amount: Type.Number({ description: 'reais: the amount asked' }),
    termMonths: Type.Integer(),
    monthlyRatePercent: Type.Number({ description: "the offer's rate, percent a month" }),
    yearlyRatePercent: Type.Number({ description: "the offer's rate, percent a year" }),
    installment: Type.Number({ description: 'reais: the first installment, with financed IOF and fees' }),
    totalPayable: Type.Number({ description: 'reais: the sum of the installments' }),
    totalCostPercent: Type.Number({ description: 'percent of the amount: (totalPayable − netReleased) / amount' }),
    netReleased: Type.Number({ description: 'reais: what the customer receives (the amount less upfront IOF and fees)' }),
    iof: Nullable(Type.Number({ description: 'reais' }), nullableOnOldChoices),
    iofFinanced: Nullable(Type.Boolean(), nullableOnOldChoices),
    fees: Nullable(Type.Number({ description: 'reais' }), nullableOnOldChoices),
    cetMonthlyPercent: Nullable(Type.Number(), nullableOnOldChoices),
    cetYearlyPercent: Nullable(Type.Number({ description: 'CET per Resolução CMN 4.881/2020' }), nullableOnOldChoices),
    releaseDate: Nullable(Type.String({ description: 'YYYY-MM-DD: the day of the choice (Brasília)' }), nullableOnOldChoices),
    firstDueDate: Nullable(Type.String({ description: 'YYYY-MM-DD' }), nullableOnOldChoices),
  },
  { description: 'the spec’s chosen.terms, priced by the pricing module at choice time: rates and costs in percent, values in reais' },
);

export const ChosenSchema = Type.Object({
  amountCents: Type.Integer(),
  termMonths: Type.Integer(),
  reason: Nullable(Type.String()),
  by: Enum(['CUSTOMER', 'OPERATOR']),
  at: DateTime,
  terms: ChosenTermsSchema,
});

export const OfferSchema = Type.Object({
  id: Type.String(),
  kind: Enum(['INDICATIVE', 'FIRM']),
  status: Enum(['SENT', 'CHOSEN', 'EXPIRED', 'ISSUED']),
  round: Type.Integer(),
  executionId: Nullable(Type.String()),
  sentAt: DateTime,
  validUntil: Type.String(),
  model: Enum(AMORTIZATION_MODELS),
  rateBpsYear: Type.Integer(),
  rate: RateSchema,
  minAmountCents: Type.Optional(Type.Integer()),
  maxAmountCents: Type.Optional(Type.Integer()),
  minTermMonths: Type.Optional(Type.Integer()),
  maxTermMonths: Type.Optional(Type.Integer()),
  amountCents: Type.Optional(Type.Integer()),
  termMonths: Type.Optional(Type.Integer()),
  installmentCents: Type.Optional(Type.Integer()),
  chosen: Nullable(ChosenSchema),
});

export const ProposalDetailSchema = Type.Object({
  ...ProposalRowSchema.properties,
  contact: ContactView,
  productId: Type.String(),
  participants: Type.Array(ParticipantSchema),
  executions: Type.Array(
    Type.Object({
      executionId: Type.String(),
      kind: Enum(['OPERATION', 'REPORT']),
      targetId: Type.String(),
      startedAt: DateTime,
      decision: Nullable(Enum(['APPROVED', 'REJECTED'])),
      step: Nullable(Type.String()),
    }),
  ),
  rounds: Type.Array(Type.Object({ round: Type.Integer(), offers: Type.Array(OfferSchema) }), { description: 'oldest round first' }),
  closed: Nullable(Type.Object({ status: Enum(['ISSUED', 'CANCELED']), date: Type.String(), executionId: Nullable(Type.String()) })),
  timeline: Type.Array(Type.Object({ at: DateTime, type: Type.String(), description: Type.String() }), { description: 'oldest first' }),
});

export const ResendSchema = Type.Object({
  offerId: Type.String(),
  linkToken: Type.String({ description: 'returned once; only its hash is kept' }),
  url: Type.String(),
  messageId: Nullable(
    Type.String({
      description: "ours: the message that sends the new link to the proposal's contact (e-mail and/or WhatsApp); null when the proposal has no contact, and the caller delivers the link",
    }),
  ),
});
export const ChooseSchema = Type.Object({ proposalId: Type.String(), offer: OfferSchema, chosen: ChosenSchema });

import Type from 'typebox';
import { LEGACY_TYPES, SUBSCRIBABLE_EVENTS } from '../../domain/webhook/catalog.ts';
import { MAX_DESCRIPTION_LENGTH } from '../../domain/webhook/decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { ObjectIdSchema } from '../route.ts';
import { MAX_INT32 } from '../validation.ts';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * type and url are checked by the handler, not here: every way of getting them wrong answers the
 * one contract text `URL de webhook inválida.`, once.
 */
export const LegacyCreateBody = Type.Object({
  type: Type.Optional(Type.Unknown({ description: `One of ${LEGACY_TYPES.join(', ')}.` })),
  url: Type.Optional(Type.Unknown({ description: 'Destination (http or https). A test POST must be answered 2xx before the subscription is saved.' })),
  apiKey: Type.Optional(Nullable(Type.String({ description: 'Sent as header api-key on each delivery.' }))),
});

export const LegacyFindQuery = Type.Object({
  webhookId: Type.Optional(Type.String({ minLength: 1, errorMessage: Messages.idShouldNotBeEmpty })),
});

export const IdParams = Type.Object({ id: ObjectIdSchema() });
export const DeliveryParams = Type.Object({ deliveryId: ObjectIdSchema() });

export const LegacySubscription = Type.Object({
  id: Type.String(),
  type: Type.Union(LEGACY_TYPES.map((t) => Type.Literal(t))),
  url: Type.String(),
  apiKey: Nullable(Type.String()),
  organizationId: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

const EventNames = Type.Array(Type.String({ description: `Names from GET /v1/webhook/events: ${SUBSCRIBABLE_EVENTS.slice(0, 3).join(', ')}, ...` }), {
  maxItems: SUBSCRIBABLE_EVENTS.length,
});
const Description = Nullable(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH }));

export const NamedCreateBody = Type.Object({
  url: Type.String({ minLength: 1 }),
  events: EventNames,
  description: Type.Optional(Description),
});

export const NamedUpdateBody = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1 })),
  events: Type.Optional(EventNames),
  description: Type.Optional(Description),
});

export const NamedSubscription = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  /** DELETED only in the reply of the delete itself. */
  status: Type.Union([Type.Literal('ACTIVE'), Type.Literal('DISABLED'), Type.Literal('DELETED')]),
  disabledReason: Nullable(Type.Union([Type.Literal('MANUAL'), Type.Literal('CONSECUTIVE_FAILURES')])),
  disabledAt: Nullable(DateTime),
  previousSecretExpiresAt: Nullable(DateTime),
  organizationId: Type.String(),
  createdAt: DateTime,
  updatedAt: DateTime,
});

export const NamedSubscriptionWithSecret = Type.Intersect([NamedSubscription, Type.Object({ secret: Type.String({ description: 'Signing secret. Shown only in this reply.' }) })]);

export const ReplayBody = Type.Object({ since: DateTime });

export const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('canceled')])),
  skip: Type.Integer({ minimum: 0, maximum: MAX_INT32, default: 0 }),
  take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  at: DateTime,
  statusCode: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  outcome: Type.String({ description: 'succeeded, http, redirect, timeout, network or refused (internal address).' }),
  error: Nullable(Type.String()),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'Also the envelope id and X-Service-Delivery.' }),
  subscriptionId: Type.String(),
  event: Type.String(),
  status: Type.String(),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(DateTime),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  occurredAt: DateTime,
  createdAt: DateTime,
  completedAt: Nullable(DateTime),
  attemptLog: Type.Array(Attempt),
});

export const DeliveryPage = Type.Object({ total: Type.Integer(), items: Type.Array(Delivery) });

export const Catalog = Type.Object({
  groups: Type.Array(Type.Object({ title: Type.String(), events: Type.Array(Type.String()) })),
  events: Type.Array(Type.String()),
  eventLabels: Type.Record(Type.String(), Type.String()),
});

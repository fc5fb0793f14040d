import Type, { type TSchema } from 'typebox';
import { EVENT_GROUPS, LEGACY_TYPE_INFO, legacyTypeOf, PING_EVENT, type LegacyType } from '../../domain/webhook/catalog.ts';

/**
 * What the service POSTs to subscribers, for the OpenAPI `webhooks` section: one entry per
 * catalog event, with the named envelope (Events B) and, for the report and credit events, the
 * legacy typed envelope (Events A) of its alias.
 */

const DateTime = Type.String({ format: 'date-time' });
const Nullable = (schema: TSchema) => Type.Union([schema, Type.Null()]);
const Open = (properties: Record<string, TSchema>, description: string) => Type.Object(properties, { additionalProperties: true, description });

const ReportFacts = Open(
  {
    reportId: Type.String(),
    organizationId: Type.String(),
    reportCreatedAt: DateTime,
    document: Type.String({ description: 'digits' }),
    type: Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')]),
    status: Type.String({ description: 'report status value: PENDING, PROCESSING, APPROVED, DENIED, MANUAL_ANALYSIS, ...' }),
    policyStatus: Type.String(),
    score: Nullable(Type.Number()),
    externalId: Nullable(Type.String()),
    policyId: Type.String(),
    policyVersion: Type.Integer(),
  },
  'The report facts, in every report event, plus the fields of the event (section, decision, export...)',
);

const DocumentEvent = (fields: Record<string, TSchema>) => Open({ registryId: Type.String(), registryDocumentId: Type.String(), ...fields }, 'Document of a registry');
const Assessment = {
  document: Type.String(),
  type: Type.String(),
  status: Type.String(),
  attempt: Type.Integer(),
  verdict: Type.String(),
  score: Type.Number({ minimum: 0, maximum: 1 }),
  reason: Nullable(Type.String()),
};

const Trail = Open(
  {
    collectionId: Type.String(),
    itemId: Nullable(Type.String()),
    recipientId: Type.Optional(Type.String()),
    action: Type.String({ description: 'trail action, e.g. COLLECTION_CREATED' }),
    actorType: Type.Union(['USER', 'API_USER', 'RECIPIENT', 'SYSTEM'].map((t) => Type.Literal(t))),
    occurredAt: DateTime,
    payload: Type.Record(Type.String(), Type.Unknown(), { description: 'specific to the action' }),
  },
  'A collection trail entry',
);

const DATA: Record<string, TSchema> = {
  'registry.document.received': DocumentEvent({
    document: Type.String(),
    fileName: Type.String(),
    mimeType: Type.String(),
    sizeBytes: Type.Integer(),
    expectedType: Nullable(Type.String()),
    status: Type.Literal('RECEIVED'),
  }),
  'registry.document.progress': DocumentEvent({ stage: Type.String(), type: Nullable(Type.String()), attempt: Type.Integer() }),
  'registry.document.assessed': DocumentEvent(Assessment),
  // A technical failure has no opinion: no verdict nor score, and a type only when one was expected.
  'registry.document.failed': DocumentEvent({ ...Assessment, type: Nullable(Type.String()), status: Type.Literal('FAILED'), verdict: Type.Null(), score: Type.Null() }),
  'registry.document.reprocessed': DocumentEvent({ attempt: Type.Integer(), forceType: Nullable(Type.String()), overriddenFeedbackVerdict: Nullable(Type.String()) }),
  'registry.document.decided': DocumentEvent({
    type: Nullable(Type.String()),
    status: Type.String(),
    attempt: Type.Integer(),
    verdict: Type.String(),
    comment: Nullable(Type.String()),
    decidedByUserId: Type.String(),
  }),
  'registry.updated': Open({ registryId: Type.String(), document: Type.String(), kycStatus: Type.String(), completeness: Type.Number() }, 'Registry summary'),
  'registry.financial.extracted': DocumentEvent({
    attempt: Type.Integer(),
    periodCount: Type.Integer(),
    latestPeriodAt: Nullable(DateTime),
    periods: Type.Array(Type.Unknown()),
  }),
  'collection.message.failed': Open(
    {
      collectionId: Type.String(),
      recipientId: Type.String(),
      name: Type.String(),
      email: Nullable(Type.String()),
      phone: Nullable(Type.String()),
      template: Type.String(),
      channels: Type.Array(Type.Union([Type.Literal('EMAIL'), Type.Literal('WHATSAPP'), Type.Literal('SMS')], { description: "SMS is ours, beside the contract's EMAIL and WHATSAPP" })),
      error: Type.String(),
    },
    'A message that did not arrive',
  ),
  [PING_EVENT]: Type.Object({ subscriptionId: Type.String(), message: Type.String() }, { description: 'The test button' }),
};

const dataOf = (event: string): TSchema => DATA[event] ?? (legacyTypeOf(event) ? ReportFacts : event.startsWith('collection.') ? Trail : Type.Record(Type.String(), Type.Unknown()));

const named = (event: string) =>
  Type.Object({
    id: Type.String({ description: 'delivery-stable (X-Service-Delivery); a retry carries the same id: deduplicate by it' }),
    event: Type.Literal(event),
    occurredAt: DateTime,
    organizationId: Type.String(),
    data: dataOf(event),
  });

const legacy = (type: LegacyType) => Type.Object({ organizationId: Type.String(), webhookType: Type.Literal(type), data: dataOf(LEGACY_TYPE_INFO[type].publicName) });

const plain = (schema: TSchema): unknown => JSON.parse(JSON.stringify(schema));

const namedHeaders = [
  { name: 'X-Service-Signature', description: 'sha256=<hex of HMAC-SHA256 with the signing secret over "<timestamp>.<raw body>">' },
  { name: 'X-Service-Timestamp', description: 'Unix seconds; reject deliveries more than five minutes away from now' },
  { name: 'X-Service-Event', description: 'event name' },
  { name: 'X-Service-Delivery', description: 'delivery id (the envelope id)' },
  { name: 'X-Service-Signature-Previous', description: 'signature with the previous secret, during a rotation overlap' },
];

const EXAMPLE_FACTS = {
  reportId: '6553f2a0a1b2c3d4e5f60720',
  organizationId: '6553f1c2a1b2c3d4e5f60715',
  reportCreatedAt: '2026-11-23T10:00:00.000Z',
  document: '12345678909',
  type: 'cpf',
  status: 'APPROVED',
  policyStatus: 'APPROVED',
  score: 812,
  externalId: 'pedido-42',
  policyId: '6553f1f0a1b2c3d4e5f60719',
  policyVersion: 1,
};

/** A named delivery of a report event, and the legacy one of its alias type. */
function examplesOf(event: string, legacyType: LegacyType | undefined) {
  if (!legacyType) return undefined;
  return {
    named: {
      summary: 'Named subscription',
      value: { id: '6553f3b0a1b2c3d4e5f60731', event, occurredAt: '2026-11-23T10:00:04.000Z', organizationId: EXAMPLE_FACTS.organizationId, data: EXAMPLE_FACTS },
    },
    legacy: { summary: `Legacy subscription of type ${legacyType}`, value: { organizationId: EXAMPLE_FACTS.organizationId, webhookType: legacyType, data: EXAMPLE_FACTS } },
  };
}

function operation(event: string, legacyType: LegacyType | undefined) {
  const envelopes = legacyType ? Type.Union([named(event), legacy(legacyType)]) : named(event);
  const headers = namedHeaders.map(({ name, description }) => ({ name, in: 'header', required: false, description: `Named deliveries: ${description}`, schema: { type: 'string' } }));
  if (legacyType) headers.push({ name: 'api-key', in: 'header', required: false, description: 'Legacy deliveries: the apiKey of the subscription, when set', schema: { type: 'string' } });
  return {
    post: {
      operationId: `webhook_${event.replace(/[^A-Za-z0-9]+/g, '_')}`,
      tags: ['webhook'],
      summary: legacyType ? `${event} (legacy type ${legacyType}): ${LEGACY_TYPE_INFO[legacyType].label}` : event,
      description: legacyType
        ? 'Named subscriptions receive the named envelope, signed; legacy subscriptions to the alias type receive {organizationId, webhookType, data}.'
        : 'Named subscriptions receive the named envelope, signed.',
      security: [],
      parameters: headers,
      requestBody: { required: true, content: { 'application/json': { schema: plain(envelopes), examples: examplesOf(event, legacyType) } } },
      responses: {
        '2XX': { description: 'Received. Answer fast and process after answering.' },
        default: {
          description: 'Any other answer (a 3xx included), a timeout after 10 s or a network error is a failed attempt, retried after 5 s, 30 s and 120 s.',
        },
      },
    },
  };
}

export function webhookPayloads(): Record<string, unknown> {
  const events = [...EVENT_GROUPS.flatMap((group) => group.events), PING_EVENT];
  return Object.fromEntries(events.map((event) => [event, operation(event, legacyTypeOf(event))]));
}

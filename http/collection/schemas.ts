import Type from 'typebox';
import { ITEM_KEY_PATTERN } from '../../domain/collection-template/content.ts';
import {
  ACTOR_TYPES,
  COLLECTION_ORIGINS,
  COLLECTION_STATUSES,
  INTAKE_STATUSES,
  DOCUMENT_VERDICTS,
  EXPECTED_DOCUMENT_TYPES,
  ITEM_KINDS,
  ITEM_STATUSES,
  NOTIFICATION_CHANNELS,
  RECIPIENT_STATUSES,
  RESOLUTION_MODES,
  REUSE_DECISIONS,
} from '../../domain/collection/enums.ts';
import { ChannelOrderSchema } from '../messaging/schemas.ts';
import { ProvenanceSchema } from '../provenance.ts';
import { ObjectIdSchema } from '../route.ts';
import { ItemConfigSchema, ItemDetailsSchema } from './kinds/index.ts';
import { MAX_INT32 } from '../validation.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Instant = Type.String({ format: 'date-time' });
const ItemKey = Type.String({ pattern: ITEM_KEY_PATTERN, description: 'lowercase letters, digits, _ and -' });
const TemplateSlug = Type.String({ pattern: '^[A-Za-z0-9_-]{1,120}$', description: 'up to 120 letters, digits, hyphens, underscores' });

export const CollectionParams = Type.Object({ id: ObjectIdSchema() });
export const ItemParams = Type.Object({ id: ObjectIdSchema(), itemId: ObjectIdSchema() });
export const RecipientParams = Type.Object({ id: ObjectIdSchema(), recipientId: ObjectIdSchema() });

const RecipientBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.Optional(Nullable(Type.String({ format: 'email', maxLength: 254 }))),
  phone: Type.Optional(Nullable(Type.String({ maxLength: 20, description: 'E.164, for example +5511999998888' }))),
  itemKeys: Type.Optional(Type.Array(ItemKey, { maxItems: 100, description: 'the items this person answers; absent: every item' })),
  channelOrder: Type.Optional(ChannelOrderSchema),
});
export { RecipientBody as AddRecipientBody };

const AdHocItem = Type.Object({
  key: Type.Optional(ItemKey),
  kind: Type.Enum(ITEM_KINDS, {
    description: 'DOCUMENT: a file of an expected type; CUSTOM: a free request answered by a file; FORM, CONSENT, SIGNATURE: set up in config; IDENTITY: a document photo and a selfie',
  }),
  title: Type.String({ minLength: 1, maxLength: 200 }),
  expectedType: Type.Optional(Nullable(Type.Enum(EXPECTED_DOCUMENT_TYPES))),
  required: Type.Optional(Type.Boolean()),
  instructions: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  config: Type.Optional(ItemConfigSchema),
});

export const CreateBody = Type.Object({
  templateSlug: Type.Optional(Nullable(TemplateSlug)),
  items: Type.Optional(Type.Array(AdHocItem, { maxItems: 50, description: 'ad hoc items (added after the template items when both are given)' })),
  registryId: Type.Optional(Nullable(ObjectIdSchema())),
  subject: Type.Optional(
    Nullable(Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), document: Type.String({ minLength: 11, maxLength: 18, description: 'CPF or CNPJ, with or without mask' }) })),
  ),
  recipients: Type.Array(RecipientBody, { minItems: 1, maxItems: 20 }),
  message: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  send: Type.Boolean({ default: true, description: 'false keeps the collection as a DRAFT' }),
  resolutionMode: Type.Optional(Type.Enum(RESOLUTION_MODES)),
  notificationChannel: Type.Optional(Type.Enum(NOTIFICATION_CHANNELS)),
  expiryDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 365 })),
  reminderDays: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 365 }), { maxItems: 10 })),
});

export const CancelBody = Type.Object({ reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) });
export const ReviewBody = Type.Object({
  decision: Type.Union([Type.Literal('APPROVE'), Type.Literal('REJECT')], { description: 'REJECT asks the recipient for a new file (reason required)' }),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
});
export const WaiveBody = Type.Object({ reason: Type.Optional(Nullable(Type.String({ maxLength: 500 }))) });

const Page = { skip: Type.Integer({ minimum: 0, maximum: MAX_INT32, default: 0 }), take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }) };
export const ListQuery = Type.Object({
  status: Type.Optional(Type.Enum(COLLECTION_STATUSES)),
  registryId: Type.Optional(ObjectIdSchema()),
  templateSlug: Type.Optional(TemplateSlug),
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "part of the subject's name or CPF/CNPJ" })),
  from: Type.Optional(Instant),
  to: Type.Optional(Instant),
  ...Page,
});
export const QueueQuery = Type.Object(Page);

const Opinion = Type.Object({
  registryDocumentId: Type.String(),
  recipientId: Nullable(Type.String()),
  submittedAt: Instant,
  type: Nullable(Type.Enum(EXPECTED_DOCUMENT_TYPES)),
  verdict: Nullable(Type.Enum(DOCUMENT_VERDICTS)),
  score: Nullable(Type.Number()),
  reason: Nullable(Type.String()),
  attempt: Nullable(Type.Integer()),
  sandbox: Type.Boolean({ description: 'the opinion came from sandbox rules (the offline keyword analyser): outside sandbox mode it resolves nothing, the operator decides' }),
  provenance: Type.Union([ProvenanceSchema, Type.Null()], {
    description: "who gave the opinion (offline-keywords, offline-unread, the vision model's name, ANALYST for an operator's decision) and whether it is a sandbox result; null: none yet",
  }),
});

export const ItemSchema = Type.Object({
  id: Type.String(),
  key: Type.String(),
  kind: Type.Enum(ITEM_KINDS),
  title: Type.String(),
  expectedType: Nullable(Type.Enum(EXPECTED_DOCUMENT_TYPES)),
  required: Type.Boolean(),
  instructions: Nullable(Type.String()),
  status: Type.Enum(ITEM_STATUSES),
  reuseDecision: Nullable(Type.Enum(REUSE_DECISIONS)),
  reusedDocumentId: Nullable(Type.String()),
  resendReason: Nullable(Type.String()),
  resolvedAt: Nullable(Instant),
  recipientIds: Type.Array(Type.String()),
  opinions: Type.Array(Opinion, { description: 'one per file received, latest opinion; empty when nothing was received' }),
  config: ItemConfigSchema,
  details: ItemDetailsSchema,
});

export const RecipientSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Nullable(Type.String()),
  phone: Nullable(Type.String()),
  status: Type.Enum(RECIPIENT_STATUSES),
  itemIds: Type.Array(Type.String()),
  linkVersion: Type.Integer(),
  openedAt: Nullable(Instant),
  lastNotifiedAt: Nullable(Instant),
  reminders: Type.Integer(),
  channelOrder: Nullable(Type.Array(Type.String(), { description: "ours: this recipient's own channel order (channelOrder of the request), null: the organization's" })),
});

const Target = Type.Object({ kind: Type.Union(['NONE', 'POLICY', 'OPERATION'].map((k) => Type.Literal(k))), id: Nullable(Type.String()) });

export const SummarySchema = Type.Object({
  id: Type.String(),
  registryId: Type.String(),
  templateSlug: Nullable(Type.String()),
  templateName: Nullable(Type.String()),
  templateVersion: Nullable(Type.Integer()),
  origin: Nullable(Type.Enum(COLLECTION_ORIGINS, { description: 'PUBLIC_FORM: an anonymous visitor opened it on a public form (an intake); null: an operator, an integrator or a pipeline' })),
  status: Type.Enum(COLLECTION_STATUSES),
  canceledAt: Nullable(Instant),
  subjectName: Type.String(),
  subjectDocument: Type.String(),
  entityType: Type.Union([Type.Literal('COMPANY'), Type.Literal('PERSON')]),
  itemsTotal: Type.Integer(),
  itemsResolved: Type.Integer(),
  itemsAwaitingOperator: Type.Integer(),
  createdAt: Instant,
  sentAt: Nullable(Instant),
  expiresAt: Nullable(Instant),
  completedAt: Nullable(Instant),
  expiredAt: Nullable(Instant),
});

export const TrailEntrySchema = Type.Object(
  {
    action: Type.String(),
    actorType: Type.Enum(ACTOR_TYPES),
    occurredAt: Instant,
  },
  { additionalProperties: true, description: 'a trail entry as GET /v1/collections/{id}/trail shows it' },
);

export const DetailSchema = Type.Object({
  ...SummarySchema.properties,
  cancelReason: Nullable(Type.String()),
  message: Nullable(Type.String({ description: "the operator's message to the recipients" })),
  expiryDays: Type.Integer({ description: 'days after sending until the collection expires with a pending item' }),
  behavior: Type.Object(
    {
      resolutionMode: Type.Enum(RESOLUTION_MODES),
      notificationChannel: Type.Enum(NOTIFICATION_CHANNELS),
      reminderDays: Type.Array(Type.Integer()),
      onCompleted: Target,
    },
    { description: 'inherited from the template (or the ad hoc choices) at creation' },
  ),
  registry: Nullable(Type.Object({}, { additionalProperties: true, description: 'summary of the target registry' })),
  intake: Nullable(
    Type.Object(
      {
        status: Type.Enum(INTAKE_STATUSES, {
          description: 'UNLINKED: the registry existed and nothing received reaches it until an operator links the intake; LINKED: an operator did; SELF_DECLARED: the intake created the registry',
        }),
        linkedAt: Nullable(Instant),
        linkedBy: Nullable(Type.Object({ actorType: Type.Enum(ACTOR_TYPES), actorId: Nullable(Type.String()) }, { description: 'the user or credential that linked it' })),
      },
      { description: "a public form's intake (docs/public-form.md); null for any other collection" },
    ),
  ),
  items: Type.Array(ItemSchema),
  recipients: Type.Array(RecipientSchema),
  trail: Type.Array(TrailEntrySchema, { description: 'the 100 most recent trail entries, newest first' }),
});

const Link = Type.Object({ recipientId: Type.String(), token: Type.String(), url: Type.String() });
export const CreatedSchema = Type.Object({ ...DetailSchema.properties, links: Type.Array(Link, { description: 'raw links, returned only now' }) });
export const LinkReplySchema = Type.Object({ collection: DetailSchema, link: Link });
export const ListSchema = Type.Object({ total: Type.Integer(), skip: Type.Integer(), take: Type.Integer(), items: Type.Array(SummarySchema) });
export const QueueSchema = Type.Object({
  total: Type.Integer(),
  skip: Type.Integer(),
  take: Type.Integer(),
  items: Type.Array(Type.Object({ collection: SummarySchema, item: ItemSchema })),
});

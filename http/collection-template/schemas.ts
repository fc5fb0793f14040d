import Type, { type Static } from 'typebox';
import { EXPECTED_DOCUMENT_TYPES, ITEM_KINDS, NOTIFICATION_CHANNELS, RESOLUTION_MODES } from '../../domain/collection/enums.ts';
import { ITEM_KEY_PATTERN, MAX_EXPIRY_DAYS, MAX_ITEMS, MAX_REMINDERS, TEMPLATE_SLUG_PATTERN, type TemplateContent } from '../../domain/collection-template/content.ts';
import { TemplateMessages } from '../../domain/collection-template/messages.ts';
import type { CompletionTarget } from '../../domain/collection-template/template.ts';
import { completeItemConfig } from '../../application/collection/item-config.ts';
import { ItemConfigSchema } from '../collection/kinds/index.ts';
import { MAX_INT32 } from '../validation.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Slug = Type.String({ pattern: TEMPLATE_SLUG_PATTERN, errorMessage: TemplateMessages.invalidSlug, description: 'letters, digits, hyphen, underscore; up to 120' });
const ItemKind = Type.Enum(ITEM_KINDS);
const AppliesTo = Type.Union([Type.Literal('PJ'), Type.Literal('PF')], { description: 'PJ: companies, PF: persons; absent: both' });
const CompletionKind = Type.Union([Type.Literal('NONE'), Type.Literal('POLICY'), Type.Literal('OPERATION')]);
const Target = Type.Object({
  kind: CompletionKind,
  id: Nullable(Type.String({ description: 'credit policy (POLICY) or pipeline (OPERATION) id; null with NONE' })),
});
const OnCompleted = Type.Object({
  kind: CompletionKind,
  id: Nullable(Type.String()),
  byEntityType: Type.Optional(Type.Object({ COMPANY: Type.Optional(Target), PERSON: Type.Optional(Target) })),
});

export const SlugParams = Type.Object({ slug: Slug });
export const VersionParams = Type.Object({ slug: Slug, version: Type.Integer({ minimum: 1, maximum: MAX_INT32 }) });

export const ListQuery = Type.Object({
  search: Type.Optional(Type.String({ maxLength: 200, description: 'in slug, name, description and item titles; case and accents ignored' })),
  itemKind: Type.Optional(ItemKind),
  enabled: Type.Optional(Type.Boolean({ description: 'true: only the choices for a new collection or pipeline step; false: only switched-off ones' })),
  skip: Type.Integer({ minimum: 0, maximum: MAX_INT32, default: 0 }),
  take: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
});

const ItemBody = Type.Object({
  key: Type.Optional(Type.String({ pattern: ITEM_KEY_PATTERN, description: 'stable within the template; item-<n> (position) when absent' })),
  kind: ItemKind,
  title: Type.String({ minLength: 1, maxLength: 200 }),
  expectedType: Type.Optional(Nullable(Type.Enum(EXPECTED_DOCUMENT_TYPES, { description: 'DOCUMENT items only' }))),
  appliesTo: Type.Optional(AppliesTo),
  required: Type.Boolean({ default: true }),
  instructions: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  config: Type.Optional(ItemConfigSchema),
});

const ContentFields = {
  name: Type.String({ minLength: 1, maxLength: 120 }),
  description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  items: Type.Array(ItemBody, { minItems: 1, maxItems: MAX_ITEMS }),
  resolutionMode: Type.Enum(RESOLUTION_MODES, { default: 'AUTOMATIC' }),
  notificationChannel: Type.Enum(NOTIFICATION_CHANNELS, { default: 'EMAIL' }),
  expiryDays: Type.Integer({ minimum: 1, maximum: MAX_EXPIRY_DAYS, default: 7 }),
  reminderDays: Type.Array(Type.Integer({ minimum: 1, maximum: MAX_EXPIRY_DAYS }), { maxItems: MAX_REMINDERS, default: [], description: 'days after sending, each before expiryDays' }),
  onCompleted: Type.Optional(OnCompleted),
  publicForm: Type.Boolean({ default: false }),
};

export const UpdateBody = Type.Object(ContentFields);
export const CreateBody = Type.Object({ slug: Slug, ...ContentFields });
export const SwitchBody = Type.Object({ enabled: Type.Boolean() });
export const SwitchReply = Type.Object({
  slug: Type.String(),
  enabled: Type.Boolean(),
  updated: Type.Integer({ description: 'versions switched: every version of an own template; 1 for a platform template' }),
});

const lower = (target: CompletionTarget): CompletionTarget => ({ kind: target.kind, id: target.id?.toLowerCase() ?? null });

/** The body as a version's content: defaults filled, reminders in order, ids lower-case. */
export function contentOf(body: Static<typeof UpdateBody>): TemplateContent {
  const onCompleted = body.onCompleted ?? { kind: 'NONE', id: null };
  const byEntityType = onCompleted.byEntityType && {
    ...(onCompleted.byEntityType.COMPANY && { COMPANY: lower(onCompleted.byEntityType.COMPANY) }),
    ...(onCompleted.byEntityType.PERSON && { PERSON: lower(onCompleted.byEntityType.PERSON) }),
  };
  return {
    name: body.name,
    description: body.description ?? null,
    items: body.items.map((item, i) => ({
      key: item.key ?? `item-${i + 1}`,
      kind: item.kind,
      title: item.title,
      expectedType: item.expectedType ?? null,
      ...(item.appliesTo && { appliesTo: item.appliesTo }),
      required: item.required,
      instructions: item.instructions ?? null,
      ...(item.config && { config: completeItemConfig(item.config) }),
    })),
    resolutionMode: body.resolutionMode,
    notificationChannel: body.notificationChannel,
    expiryDays: body.expiryDays,
    reminderDays: [...body.reminderDays].sort((a, b) => a - b),
    onCompleted: { ...lower(onCompleted), ...(byEntityType && { byEntityType }) },
    publicForm: body.publicForm,
  };
}

export const TemplateSchema = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  scope: Type.Union([Type.Literal('PLATFORM'), Type.Literal('ORGANIZATION')]),
  version: Type.Integer(),
  enabled: Type.Boolean({ description: 'for the caller organization; off: hidden from new choices, slug still accepted' }),
  publicFormUrl: Nullable(Type.String({ description: 'null unless publicForm' })),
  items: Type.Array(
    Type.Object({
      key: Type.String(),
      kind: ItemKind,
      title: Type.String(),
      expectedType: Nullable(Type.Enum(EXPECTED_DOCUMENT_TYPES)),
      appliesTo: Type.Optional(AppliesTo),
      required: Type.Boolean(),
      instructions: Nullable(Type.String()),
      config: Type.Optional(ItemConfigSchema),
    }),
  ),
  resolutionMode: Type.Enum(RESOLUTION_MODES),
  notificationChannel: Type.Enum(NOTIFICATION_CHANNELS),
  expiryDays: Type.Integer(),
  reminderDays: Type.Array(Type.Integer()),
  onCompleted: OnCompleted,
  publicForm: Type.Boolean(),
  metrics: Type.Object({
    collections: Type.Integer(),
    completedCollections: Type.Integer(),
    completionRate: Type.Number({ description: 'completed / collections, 0 to 1' }),
    averageCompletionHours: Nullable(Type.Number({ description: 'creation to completion; null until one completes' })),
  }),
});

export const TemplatePage = Type.Object({ total: Type.Integer(), skip: Type.Integer(), take: Type.Integer(), items: Type.Array(TemplateSchema) });

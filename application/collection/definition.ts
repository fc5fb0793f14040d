import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { CompletionTarget, OnCompleted, TemplateItem } from '../../domain/collection-template/template.ts';
import type { CollectionDefinition, EntityType, ItemDefinition, RecipientDefinition } from '../../domain/collection/definition.ts';
import type { ExpectedDocumentType, ItemKind, NotificationChannel, ResolutionMode } from '../../domain/collection/enums.ts';
import { completeItemConfig, type ItemConfigInput } from './item-config.ts';
import { completeSignatureDocuments } from './signature/document.ts';
import { refuseUncontractedItems } from '../../domain/collection/kinds/index.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { hasValidCheckDigits, stripMask } from '../../domain/shared/document.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { validChannelOrder } from '../../domain/messaging/settings-decider.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { findTemplateBySlug } from '../../projections/collection-template/queries.ts';
import { findOrganization } from '../../projections/identity/queries.ts';
import { findDocumentOnFile, registrySummary } from '../../projections/registry/queries.ts';
import type { AppContext } from '../context.ts';
import { ensureRegistry } from '../registry/intake-commands.ts';
import type { Actor } from '../../domain/collection/commands.ts';
import { actorOf, type Caller } from './actor.ts';
import { recipientLink } from './links.ts';

export interface AdHocItemInput {
  key?: string;
  kind: ItemKind;
  title: string;
  expectedType?: ExpectedDocumentType | null;
  required?: boolean;
  instructions?: string | null;
  config?: ItemConfigInput;
}

export interface RecipientInput {
  name: string;
  email?: string | null;
  /** E.164, for example +5511999998888. */
  phone?: string | null;
  /** Keys of the items this person answers; absent: every item. */
  itemKeys?: string[];
  /** This person's own channel order (validChannelOrder); absent or null: the organization's. */
  channelOrder?: string[] | null;
}

export interface CreateCollectionInput {
  templateSlug?: string | null;
  items?: AdHocItemInput[];
  registryId?: string | null;
  subject?: { name: string; document: string } | null;
  recipients: RecipientInput[];
  message?: string | null;
  send: boolean;
  resolutionMode?: ResolutionMode;
  notificationChannel?: NotificationChannel;
  expiryDays?: number;
  reminderDays?: number[];
  /** The contract a pipeline generated (registry document id): the collection opens to sign it. */
  contractDocumentId?: string | null;
  /**
   * A pipeline's COLLECTION step opens it and waits for it: its completion moves that execution
   * on, so the template's own onCompleted target (a report, another pipeline) is not started too.
   */
  openedByExecution?: boolean;
}

/** Behaviour of an ad hoc collection when the caller says nothing (a template's own values win otherwise). */
export const AD_HOC_DEFAULTS = { resolutionMode: 'AUTOMATIC', notificationChannel: 'EMAIL', expiryDays: 15, reminderDays: [3, 7] } as const;

type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'config' | 'db'>;
type Subject = CollectionDefinition['subject'];

/**
 * Who the collection is about: an existing registry of the organization (its id), or a subject
 * whose registry is found or created (registryId null) only once the request is accepted.
 */
async function resolveSubject(app: App, caller: Caller, input: CreateCollectionInput): Promise<{ registryId: string | null; subject: Subject }> {
  if (input.registryId) {
    const summary = await registrySummary(app.db, caller.organizationId, input.registryId);
    if (!summary) throw new DomainError('not_found', CollectionMessages.registryNotFound);
    return { registryId: summary.registryId, subject: { name: summary.name, document: summary.document, entityType: summary.entityType } };
  }
  if (!input.subject) throw new DomainError('invalid', CollectionMessages.subjectOrRegistry);
  const digits = stripMask(input.subject.document);
  const entityType: EntityType | null = digits.length === 14 ? 'COMPANY' : digits.length === 11 ? 'PERSON' : null;
  if (!entityType || !/^\d+$/.test(digits) || !hasValidCheckDigits(entityType === 'COMPANY' ? 'cnpj' : 'cpf', digits)) {
    throw new DomainError('invalid', CollectionMessages.invalidDocument);
  }
  return { registryId: null, subject: { name: input.subject.name.trim(), document: digits, entityType } };
}

const appliesTo = (item: Pick<TemplateItem, 'appliesTo'>, entityType: EntityType) => !item.appliesTo || item.appliesTo === (entityType === 'COMPANY' ? 'PJ' : 'PF');

/** The completion target for this subject: the template's per-entity-type choice, else its default. */
function completionFor(onCompleted: OnCompleted, entityType: EntityType): CompletionTarget {
  const target = onCompleted.byEntityType?.[entityType];
  return target ?? { kind: onCompleted.kind, id: onCompleted.id };
}

export function normalizePhone(phone: string): string {
  const parsed = parsePhoneNumberFromString(phone);
  if (!parsed || !parsed.isValid() || parsed.number !== phone.replace(/[\s()-]/g, '')) throw new DomainError('invalid', CollectionMessages.invalidPhone);
  return parsed.number;
}

/** A recipient as the collection stores it: validated contacts, the items they answer, their first link's hash. */
export function resolveRecipient(
  app: Pick<AppContext, 'config'>,
  collectionId: string,
  recipientId: string,
  input: RecipientInput,
  items: readonly Pick<ItemDefinition, 'itemId' | 'key'>[],
): RecipientDefinition {
  const itemIds = (input.itemKeys ?? items.map((i) => i.key)).map((key) => {
    const item = items.find((i) => i.key === key);
    if (!item) throw new DomainError('invalid', CollectionMessages.unknownItemKey);
    return item.itemId;
  });
  const email = input.email?.trim().toLowerCase() || null;
  const phone = input.phone ? normalizePhone(input.phone) : null;
  const channelOrder = input.channelOrder ?? null;
  if (channelOrder !== null && !validChannelOrder(channelOrder)) throw new DomainError('invalid', MessagingMessages.invalidChannelOrder);
  return {
    recipientId,
    name: input.name.trim(),
    email,
    phone,
    itemIds: [...new Set(itemIds)],
    linkHash: recipientLink(app, collectionId, recipientId, 1).hash,
    // Absent rather than null when not given, so the events of those who name none stay as they were.
    ...(channelOrder ? { channelOrder } : {}),
  };
}

export interface ResolvedDefinition {
  definition: CollectionDefinition;
  /** Set for a public form's collection: UNLINKED over a registry that existed, SELF_DECLARED over one it created. */
  intake?: 'UNLINKED' | 'SELF_DECLARED';
}

/**
 * `publicForm`: an anonymous visitor opens it for whatever CPF or CNPJ they typed, so nothing on
 * file answers an item (an item born ALREADY_ON_FILE would tell them the person is a customer).
 */
export async function resolveDefinition(
  app: App,
  caller: Caller,
  collectionId: string,
  input: CreateCollectionInput,
  options: { actor?: Actor; publicForm?: boolean } = {},
): Promise<ResolvedDefinition> {
  const { actor = actorOf(caller), publicForm = false } = options;
  if (!input.templateSlug && !input.items?.length) throw new DomainError('invalid', CollectionMessages.templateOrItems);
  const template = input.templateSlug ? await findTemplateBySlug(app.db, caller.organizationId, input.templateSlug) : null;
  if (input.templateSlug && !template) throw new DomainError('not_found', Messages.templateNotFound);
  const { registryId: existingRegistryId, subject } = await resolveSubject(app, caller, input);
  const requested = [
    ...(template?.items ?? []).filter((item) => appliesTo(item, subject.entityType)),
    ...(input.items ?? []).map((item, index) => ({
      key: item.key ?? `item-${index + 1}`,
      kind: item.kind,
      title: item.title,
      expectedType: item.expectedType ?? null,
      required: item.required ?? true,
      instructions: item.instructions ?? null,
      ...(item.config && { config: completeItemConfig(item.config) }),
    })),
  ];
  if (requested.length === 0) throw new DomainError('invalid', CollectionMessages.templateNoItems);
  // The modules as they are now (pipelines and the public form ask without a token that carries
  // them), before the subject's registry is created: a refused request leaves nothing behind.
  refuseUncontractedItems(requested, (await findOrganization(app.db, caller.organizationId))?.modules ?? []);
  // `created`: this request created the registry (a public form's registry is then self-declared).
  let registryId = existingRegistryId;
  let created = false;
  if (!registryId) {
    const ensured = await ensureRegistry(app, caller.organizationId, { ...subject, selfDeclared: publicForm }, actor);
    registryId = ensured.registryId;
    created = ensured.position !== null;
  }
  const asOf = app.clock.now().toISOString();
  const items: ItemDefinition[] = [];
  for (const item of requested) {
    // A valid document of the expected type already on file answers the item: nobody is asked again.
    const onFile = item.kind === 'DOCUMENT' && item.expectedType && !publicForm ? await findDocumentOnFile(app.db, caller.organizationId, subject.document, item.expectedType, asOf) : null;
    items.push({
      itemId: app.ids.objectId(),
      key: item.key,
      kind: item.kind,
      title: item.title,
      expectedType: item.expectedType,
      required: item.required,
      instructions: item.instructions,
      reuse: onFile ? { decision: 'APPROVED', registryDocumentId: onFile.registryDocumentId, validUntil: onFile.validUntil } : null,
      ...(item.config && { config: item.config }),
    });
  }
  await completeSignatureDocuments(app, caller.organizationId, items);
  const recipients = input.recipients.map((r) => resolveRecipient(app, collectionId, app.ids.objectId(), r, items));
  const definition: CollectionDefinition = {
    registryId,
    subject,
    template: template ? { slug: template.slug, name: template.name, version: template.version } : null,
    mode: input.resolutionMode ?? template?.resolutionMode ?? AD_HOC_DEFAULTS.resolutionMode,
    channel: input.notificationChannel ?? template?.notificationChannel ?? AD_HOC_DEFAULTS.notificationChannel,
    expiryDays: input.expiryDays ?? template?.expiryDays ?? AD_HOC_DEFAULTS.expiryDays,
    reminderDays: input.reminderDays ?? template?.reminderDays ?? [...AD_HOC_DEFAULTS.reminderDays],
    onCompleted: template && !input.openedByExecution ? completionFor(template.onCompleted, subject.entityType) : { kind: 'NONE', id: null },
    message: input.message?.trim() || null,
    items,
    recipients,
    ...(input.contractDocumentId && { contractDocumentId: input.contractDocumentId }),
  };
  return publicForm ? { definition, intake: created ? 'SELF_DECLARED' : 'UNLINKED' } : { definition };
}

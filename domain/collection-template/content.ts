import { EXPECTED_DOCUMENT_TYPES, ITEM_KINDS, NOTIFICATION_CHANNELS, RESOLUTION_MODES } from '../collection/enums.ts';
import { validateItemConfig } from '../collection/kinds/index.ts';
import { DomainError } from '../shared/errors.ts';
import type { CollectionTemplate, CompletionTarget, OnCompleted, TemplateItem } from './template.ts';
import { TemplateMessages } from './messages.ts';

/** What an organization writes in a version; slug, scope, version and switch are not content. */
export type TemplateContent = Omit<CollectionTemplate, 'templateId' | 'slug' | 'scope' | 'version' | 'enabled'>;

/** The contract's templateSlug: letters, digits, hyphen, underscore, up to 120 characters. */
export const TEMPLATE_SLUG_PATTERN = '^[A-Za-z0-9_-]{1,120}$';
export const ITEM_KEY_PATTERN = '^[a-z0-9_-]{1,60}$';
export const MAX_ITEMS = 50;
export const MAX_EXPIRY_DAYS = 365;
export const MAX_REMINDERS = 10;
/** Outcomes of the classifier, not something a template can ask for. */
const NOT_REQUESTABLE = new Set(['FORA_DE_ESCOPO', 'NAO_IDENTIFICADO']);
const OBJECT_ID = /^[0-9a-f]{24}$/i;

const invalid = (message: string) => new DomainError('invalid', message);
const isText = (value: unknown, min: number, max: number) => typeof value === 'string' && value.trim().length >= min && value.length <= max;

export function validateSlug(slug: string): void {
  if (!new RegExp(TEMPLATE_SLUG_PATTERN).test(slug)) throw invalid(TemplateMessages.invalidSlug);
}

function validateItem(item: TemplateItem): void {
  if (!new RegExp(ITEM_KEY_PATTERN).test(item.key)) throw invalid(TemplateMessages.invalidItemKey);
  if (!isText(item.title, 1, 200)) throw invalid(TemplateMessages.invalidItemTitle);
  if (item.instructions !== null && !isText(item.instructions, 0, 1000)) throw invalid(TemplateMessages.invalidInstructions);
  if (!(ITEM_KINDS as readonly string[]).includes(item.kind)) throw invalid(TemplateMessages.invalidItemKind);
  if (item.expectedType !== null) {
    if (item.kind !== 'DOCUMENT') throw invalid(TemplateMessages.expectedTypeOnlyForDocument);
    if (!(EXPECTED_DOCUMENT_TYPES as readonly string[]).includes(item.expectedType) || NOT_REQUESTABLE.has(item.expectedType)) {
      throw invalid(TemplateMessages.invalidExpectedType);
    }
  }
  if (item.appliesTo !== undefined && item.appliesTo !== 'PJ' && item.appliesTo !== 'PF') throw invalid(TemplateMessages.invalidAppliesTo);
  validateItemConfig(item);
}

function validateTarget(target: CompletionTarget): void {
  const ok = target.kind === 'NONE' ? target.id === null : (target.kind === 'POLICY' || target.kind === 'OPERATION') && typeof target.id === 'string' && OBJECT_ID.test(target.id);
  if (!ok) throw invalid(TemplateMessages.invalidCompletion);
}

/** Every target of onCompleted: the default and the per-entity-type overrides. */
export function completionTargets(onCompleted: OnCompleted): Array<{ entityType: 'COMPANY' | 'PERSON' | null; target: CompletionTarget }> {
  const targets: Array<{ entityType: 'COMPANY' | 'PERSON' | null; target: CompletionTarget }> = [{ entityType: null, target: { kind: onCompleted.kind, id: onCompleted.id } }];
  for (const entityType of ['COMPANY', 'PERSON'] as const) {
    const target = onCompleted.byEntityType?.[entityType];
    if (target) targets.push({ entityType, target });
  }
  return targets;
}

/** The rules a version must follow, whoever writes it (the HTTP schemas check shapes first). */
export function validateTemplateContent(content: TemplateContent): void {
  if (!isText(content.name, 1, 120)) throw invalid(TemplateMessages.invalidName);
  if (content.description !== null && !isText(content.description, 0, 500)) throw invalid(TemplateMessages.invalidDescription);
  if (content.items.length < 1 || content.items.length > MAX_ITEMS) throw invalid(TemplateMessages.itemsRequired);
  content.items.forEach(validateItem);
  if (new Set(content.items.map((i) => i.key)).size !== content.items.length) throw invalid(TemplateMessages.duplicateItemKey);
  if (!(RESOLUTION_MODES as readonly string[]).includes(content.resolutionMode)) throw invalid(TemplateMessages.invalidResolutionMode);
  if (!(NOTIFICATION_CHANNELS as readonly string[]).includes(content.notificationChannel)) throw invalid(TemplateMessages.invalidNotificationChannel);
  if (!Number.isInteger(content.expiryDays) || content.expiryDays < 1 || content.expiryDays > MAX_EXPIRY_DAYS) throw invalid(TemplateMessages.invalidExpiryDays);
  const reminders = content.reminderDays;
  const ascending = reminders.every((day, i) => Number.isInteger(day) && day >= 1 && day < content.expiryDays && (i === 0 || day > reminders[i - 1]!));
  if (reminders.length > MAX_REMINDERS || !ascending) throw invalid(TemplateMessages.invalidReminderDays);
  completionTargets(content.onCompleted).forEach(({ target }) => validateTarget(target));
}

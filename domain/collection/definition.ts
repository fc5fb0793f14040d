import type { MessageChannel } from '../messaging/events.ts';
import type { OnCompleted } from '../collection-template/template.ts';
import type { ExpectedDocumentType, ItemKind, NotificationChannel, ResolutionMode, ReuseDecision } from './enums.ts';
import type { ItemConfig } from './kinds/config.ts';

export type EntityType = 'COMPANY' | 'PERSON';

/** One requested item as the collection is created with it (from a template or ad hoc). */
export interface ItemDefinition {
  itemId: string;
  /** The template item's key, or the caller's key for an ad hoc item; recipients name items by it. */
  key: string;
  kind: ItemKind;
  title: string;
  expectedType: ExpectedDocumentType | null;
  required: boolean;
  instructions: string | null;
  /** Set when a valid document of the expected type is already on file: the item is born ALREADY_ON_FILE. */
  reuse: { decision: ReuseDecision; registryDocumentId: string; validUntil: string | null } | null;
  /** What a FORM, CONSENT or SIGNATURE item asks (absent on items created before kinds had one). */
  config?: ItemConfig;
}

/** A person asked to answer items. Personal data: name, email, phone (see application/collection/personal-data.ts). */
export interface RecipientDefinition {
  recipientId: string;
  name: string;
  email: string | null;
  /** E.164. */
  phone: string | null;
  itemIds: string[];
  /** sha256 of the raw link token of version 1; the raw token is never stored. */
  linkHash: string;
  /** This person's own channel order, over the organization's (docs/messaging.md); absent or null: the organization's. */
  channelOrder?: MessageChannel[] | null;
}

/**
 * Everything a collection is created with. It travels in CollectionCreated's `definition` (beside
 * the trail envelope, never in the trail payload) because it holds personal data.
 */
export interface CollectionDefinition {
  registryId: string;
  subject: { name: string; document: string; entityType: EntityType };
  template: { slug: string; name: string; version: number } | null;
  mode: ResolutionMode;
  channel: NotificationChannel;
  expiryDays: number;
  reminderDays: number[];
  onCompleted: OnCompleted;
  message: string | null;
  items: ItemDefinition[];
  recipients: RecipientDefinition[];
  /** The contract a pipeline generated and opened this collection to sign (registry document id). */
  contractDocumentId?: string | null;
}

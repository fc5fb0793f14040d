import type { AppliesTo, ExpectedDocumentType, ItemKind, NotificationChannel, ResolutionMode } from '../collection/enums.ts';
import type { ItemConfig } from '../collection/kinds/config.ts';

/** PLATFORM: provided by the service to every organization; ORGANIZATION: the organization's own. */
export type TemplateScope = 'PLATFORM' | 'ORGANIZATION';

export interface TemplateItem {
  /** Stable within the template (slug-like); a collection item keeps it to say where it came from. */
  key: string;
  kind: ItemKind;
  title: string;
  expectedType: ExpectedDocumentType | null;
  /** Absent: the item applies to persons and companies alike. */
  appliesTo?: AppliesTo;
  required: boolean;
  instructions: string | null;
  /** The form, consent term or signature set-up of a FORM, CONSENT or SIGNATURE item. */
  config?: ItemConfig;
}

export type CompletionKind = 'NONE' | 'POLICY' | 'OPERATION';
export interface CompletionTarget {
  kind: CompletionKind;
  /** The credit policy (POLICY) or pipeline (OPERATION) id; null with NONE. */
  id: string | null;
}
/** What happens when a collection of the template completes; byEntityType overrides per subject. */
export interface OnCompleted extends CompletionTarget {
  byEntityType?: { COMPANY?: CompletionTarget; PERSON?: CompletionTarget };
}

/** One version of a template, as a new collection inherits it. */
export interface CollectionTemplate {
  templateId: string;
  slug: string;
  name: string;
  description: string | null;
  scope: TemplateScope;
  version: number;
  /** For the asking organization: a platform template can be switched off for one organization. */
  enabled: boolean;
  items: TemplateItem[];
  resolutionMode: ResolutionMode;
  notificationChannel: NotificationChannel;
  /** Days after sending until the collection expires with a pending item. */
  expiryDays: number;
  /** Days after sending on which a reminder goes to recipients with pending items. */
  reminderDays: number[];
  onCompleted: OnCompleted;
  publicForm: boolean;
}

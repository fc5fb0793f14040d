import type { DomainEvent } from '../shared/decider.ts';
import type { TemplateContent } from './content.ts';
import type { TemplateScope } from './template.ts';

/**
 * `collectiontemplates-<organizationId>`: one stream per organization holding its own templates
 * and its switches of platform templates, so that slug uniqueness within the organization is a
 * rule of one decider (decided against everything the organization has) and not a race.
 */
export const COLLECTION_TEMPLATE_CATEGORY = 'collectiontemplates';
export const templateCatalogStream = (organizationId: string) => `${COLLECTION_TEMPLATE_CATEGORY}-${organizationId}`;

export const CollectionTemplateEventTypes = {
  created: 'CollectionTemplateCreated',
  versioned: 'CollectionTemplateVersioned',
  switched: 'CollectionTemplateSwitched',
} as const;

interface VersionData {
  organizationId: string;
  templateId: string;
  slug: string;
  version: number;
  /** The whole version, not a diff: a version must read alone. */
  content: TemplateContent;
  userId: string;
  createdAt: string;
}

export type CollectionTemplateCreated = DomainEvent<'CollectionTemplateCreated', VersionData>;
export type CollectionTemplateVersioned = DomainEvent<'CollectionTemplateVersioned', VersionData>;
/** On or off for every version of the template (a platform one: for this organization only). */
export type CollectionTemplateSwitched = DomainEvent<
  'CollectionTemplateSwitched',
  { organizationId: string; templateId: string; slug: string; scope: TemplateScope; enabled: boolean; versions: number; userId: string; switchedAt: string }
>;

export type CollectionTemplateEvent = CollectionTemplateCreated | CollectionTemplateVersioned | CollectionTemplateSwitched;

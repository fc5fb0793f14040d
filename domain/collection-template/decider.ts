import { sameContent } from '../shared/canonical.ts';
import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { validateSlug, validateTemplateContent, type TemplateContent } from './content.ts';
import type { CollectionTemplateEvent } from './events.ts';
import { TemplateMessages } from './messages.ts';
import { platformTemplate } from './platform.ts';
import type { CollectionTemplate } from './template.ts';

export type CollectionTemplateCommand =
  | { type: 'CreateTemplate'; organizationId: string; templateId: string; slug: string; content: TemplateContent; userId: string; at: string }
  | { type: 'ReviseTemplate'; organizationId: string; slug: string; content: TemplateContent; userId: string; at: string }
  | { type: 'SwitchTemplate'; organizationId: string; slug: string; enabled: boolean; userId: string; at: string };

export interface OwnTemplateState {
  templateId: string;
  /** Every version, oldest first; versions[n - 1] is version n. */
  versions: TemplateContent[];
  enabled: boolean;
}

/** An organization's catalog: its own templates by slug and its switches of platform templates. */
export interface CollectionTemplateState {
  own: Record<string, OwnTemplateState>;
  /** Platform slugs switched by the organization; absent means on. */
  platformEnabled: Record<string, boolean>;
}

/** How many versions a switch of `slug` applies to (the contract's `updated`); 0 when unknown. */
export function switchedVersions(state: CollectionTemplateState, slug: string): number {
  if (platformTemplate(slug)) return 1;
  return state.own[slug]?.versions.length ?? 0;
}

/** A template as the organization sees it now (latest version, its switch); null when unknown. */
export function templateOf(state: CollectionTemplateState, slug: string): CollectionTemplate | null {
  const platform = platformTemplate(slug);
  if (platform) return { ...platform, enabled: state.platformEnabled[slug] ?? true };
  const own = state.own[slug];
  if (!own) return null;
  const version = own.versions.length;
  return { ...own.versions[version - 1]!, templateId: own.templateId, slug, scope: 'ORGANIZATION', version, enabled: own.enabled };
}

// Slugs differ by more than case: "KYC-refresh" would read as the platform's "kyc-refresh".
const taken = (state: CollectionTemplateState, slug: string) => platformTemplate(slug.toLowerCase()) !== undefined || Object.keys(state.own).some((s) => s.toLowerCase() === slug.toLowerCase());

function ownTemplate(state: CollectionTemplateState, slug: string): OwnTemplateState {
  if (platformTemplate(slug)) throw new DomainError('conflict', TemplateMessages.platformTemplateReadOnly);
  const template = state.own[slug];
  if (!template) throw new DomainError('not_found', TemplateMessages.templateNotFound);
  return template;
}

export const collectionTemplateDecider: Decider<CollectionTemplateCommand, CollectionTemplateEvent, CollectionTemplateState> = {
  initialState: () => ({ own: {}, platformEnabled: {} }),

  evolve(state, event) {
    switch (event.type) {
      case 'CollectionTemplateCreated':
        return { ...state, own: { ...state.own, [event.data.slug]: { templateId: event.data.templateId, versions: [event.data.content], enabled: true } } };
      case 'CollectionTemplateVersioned': {
        const template = state.own[event.data.slug]!;
        return { ...state, own: { ...state.own, [event.data.slug]: { ...template, versions: [...template.versions, event.data.content] } } };
      }
      case 'CollectionTemplateSwitched': {
        const { slug, enabled } = event.data;
        if (event.data.scope === 'PLATFORM') return { ...state, platformEnabled: { ...state.platformEnabled, [slug]: enabled } };
        return { ...state, own: { ...state.own, [slug]: { ...state.own[slug]!, enabled } } };
      }
      default:
        return state;
    }
  },

  decide(command, state) {
    const { organizationId, slug, userId, at } = command;
    switch (command.type) {
      case 'CreateTemplate': {
        validateSlug(slug);
        if (taken(state, slug)) throw new DomainError('conflict', TemplateMessages.slugTaken);
        validateTemplateContent(command.content);
        const data = { organizationId, templateId: command.templateId, slug, version: 1, content: command.content, userId, createdAt: at };
        return [{ type: 'CollectionTemplateCreated', data }];
      }
      case 'ReviseTemplate': {
        const template = ownTemplate(state, slug);
        validateTemplateContent(command.content);
        // Saving an unchanged template is not an edit: no new version.
        if (sameContent(command.content, template.versions[template.versions.length - 1])) return [];
        const version = template.versions.length + 1;
        return [{ type: 'CollectionTemplateVersioned', data: { organizationId, templateId: template.templateId, slug, version, content: command.content, userId, createdAt: at } }];
      }
      case 'SwitchTemplate': {
        const platform = platformTemplate(slug);
        const template = platform ? null : state.own[slug];
        if (!platform && !template) throw new DomainError('not_found', TemplateMessages.templateNotFound);
        const current = platform ? (state.platformEnabled[slug] ?? true) : template!.enabled;
        if (current === command.enabled) return [];
        const templateId = platform ? platform.templateId : template!.templateId;
        const scope = platform ? 'PLATFORM' : 'ORGANIZATION';
        const data = { organizationId, templateId, slug, scope, enabled: command.enabled, versions: switchedVersions(state, slug), userId, switchedAt: at } as const;
        return [{ type: 'CollectionTemplateSwitched', data }];
      }
    }
  },
};

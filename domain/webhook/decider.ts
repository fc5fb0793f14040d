import type { Decider } from '../shared/decider.ts';
import { DomainError } from '../shared/errors.ts';
import { Messages } from '../shared/messages.ts';
import { isLegacyType, isSubscribableEvent, type LegacyType } from './catalog.ts';
import { WebhookEventTypes, type DisableReason, type Family, type WebhookEvent } from './events.ts';
import { Refusals, WebhookMessages } from './messages.ts';
import { checkWebhookUrl } from './url.ts';

export const MAX_DESCRIPTION_LENGTH = 500;

export interface WebhookState {
  status: 'absent' | 'active' | 'disabled' | 'deleted';
  subscriptionId: string;
  organizationId: string;
  family: Family;
  legacyType: LegacyType | null;
  url: string;
  sealedApiKey: string | null;
  apiKeyHash: string | null;
  events: string[];
  description: string | null;
  sealedSecret: string | null;
  previousSealedSecret: string | null;
  previousSecretExpiresAt: string | null;
  disabledReason: DisableReason | null;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Issued {
  organizationId: string;
  /** Who asks: a user id, or null for the dispatcher. */
  by: string | null;
  /** ISO 8601 instant, from the application clock. */
  at: string;
}

/** `family` names the routes the command came through: one family never sees the other's subscriptions. */
export type WebhookCommand =
  | (Issued & { kind: 'createLegacy'; subscriptionId: string; legacyType: string; url: string; sealedApiKey: string | null; apiKeyHash: string | null })
  | (Issued & { kind: 'createNamed'; subscriptionId: string; url: string; events: string[]; description: string | null; sealedSecret: string })
  | (Issued & { kind: 'update'; url?: string; events?: string[]; description?: string | null })
  | (Issued & { kind: 'disable'; family: Family; reason: DisableReason; consecutiveFailures?: number })
  | (Issued & { kind: 'enable' })
  | (Issued & { kind: 'rotateSecret'; sealedSecret: string; previousSecretExpiresAt: string })
  | (Issued & { kind: 'delete'; family: Family });

export function initialState(): WebhookState {
  return {
    status: 'absent',
    subscriptionId: '',
    organizationId: '',
    family: 'named',
    legacyType: null,
    url: '',
    sealedApiKey: null,
    apiKeyHash: null,
    events: [],
    description: null,
    sealedSecret: null,
    previousSealedSecret: null,
    previousSecretExpiresAt: null,
    disabledReason: null,
    disabledAt: null,
    createdAt: '',
    updatedAt: '',
  };
}

export function evolve(state: WebhookState, event: WebhookEvent): WebhookState {
  switch (event.type) {
    case WebhookEventTypes.created: {
      const d = event.data;
      return {
        ...initialState(),
        status: 'active',
        subscriptionId: d.subscriptionId,
        organizationId: d.organizationId,
        family: d.family,
        legacyType: d.legacyType,
        url: d.url,
        sealedApiKey: d.sealedApiKey,
        apiKeyHash: d.apiKeyHash,
        events: d.events,
        description: d.description,
        sealedSecret: d.sealedSecret,
        createdAt: d.createdAt,
        updatedAt: d.createdAt,
      };
    }
    case WebhookEventTypes.updated: {
      const d = event.data;
      return {
        ...state,
        url: d.url ?? state.url,
        events: d.events ?? state.events,
        description: d.description === undefined ? state.description : d.description,
        updatedAt: d.updatedAt,
      };
    }
    case WebhookEventTypes.disabled:
      return { ...state, status: 'disabled', disabledReason: event.data.reason, disabledAt: event.data.disabledAt, updatedAt: event.data.disabledAt };
    case WebhookEventTypes.enabled:
      return { ...state, status: 'active', disabledReason: null, disabledAt: null, updatedAt: event.data.enabledAt };
    case WebhookEventTypes.secretRotated:
      return {
        ...state,
        previousSealedSecret: state.sealedSecret,
        previousSecretExpiresAt: event.data.previousSecretExpiresAt,
        sealedSecret: event.data.sealedSecret,
        updatedAt: event.data.rotatedAt,
      };
    case WebhookEventTypes.deleted:
      return { ...state, status: 'deleted', updatedAt: event.data.deletedAt };
    default:
      return state;
  }
}

function invalid(message: string): never {
  throw new DomainError('invalid', message);
}

function checkedUrl(text: string): string {
  const checked = checkWebhookUrl(text.trim());
  if ('problem' in checked) throw Refusals.url(checked.problem);
  return checked.url;
}

function checkedEvents(events: readonly string[]): string[] {
  if (events.length === 0) invalid(WebhookMessages.noEvents);
  const unknown = events.filter((name) => !isSubscribableEvent(name));
  if (unknown.length) invalid(unknown.map(WebhookMessages.unknownEvent).join(','));
  return [...new Set(events)];
}

function checkedDescription(description: string | null | undefined): string | null {
  const text = description?.trim() || null;
  if (text && text.length > MAX_DESCRIPTION_LENGTH) invalid(`description must be shorter than or equal to ${MAX_DESCRIPTION_LENGTH} characters`);
  return text;
}

/** Absent, deleted, another organization's or the other family's: all answered alike. */
function existing(state: WebhookState, command: Issued, family: Family, notFound: string = WebhookMessages.subscriptionNotFound): void {
  const visible = (state.status === 'active' || state.status === 'disabled') && state.organizationId === command.organizationId && state.family === family;
  if (!visible) throw new DomainError('not_found', notFound);
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function decide(command: WebhookCommand, state: WebhookState): WebhookEvent[] {
  const base = { subscriptionId: state.subscriptionId, organizationId: command.organizationId };
  switch (command.kind) {
    case 'createLegacy': {
      if (state.status !== 'absent') throw new DomainError('conflict', Messages.invalidWebhookUrl);
      if (!isLegacyType(command.legacyType)) throw Refusals.legacyType();
      const data = {
        subscriptionId: command.subscriptionId,
        organizationId: command.organizationId,
        family: 'legacy' as const,
        legacyType: command.legacyType,
        url: checkedUrl(command.url),
        sealedApiKey: command.sealedApiKey,
        apiKeyHash: command.apiKeyHash,
        events: [],
        description: null,
        sealedSecret: null,
        createdBy: command.by ?? '',
        createdAt: command.at,
      };
      return [{ type: WebhookEventTypes.created, data }];
    }
    case 'createNamed': {
      if (state.status !== 'absent') throw new DomainError('conflict', WebhookMessages.subscriptionNotFound);
      const data = {
        subscriptionId: command.subscriptionId,
        organizationId: command.organizationId,
        family: 'named' as const,
        legacyType: null,
        url: checkedUrl(command.url),
        sealedApiKey: null,
        apiKeyHash: null,
        events: checkedEvents(command.events),
        description: checkedDescription(command.description),
        sealedSecret: command.sealedSecret,
        createdBy: command.by ?? '',
        createdAt: command.at,
      };
      return [{ type: WebhookEventTypes.created, data }];
    }
    case 'update': {
      existing(state, command, 'named');
      if (command.url === undefined && command.events === undefined && command.description === undefined) invalid(WebhookMessages.nothingToUpdate);
      const url = command.url === undefined ? undefined : checkedUrl(command.url);
      const events = command.events === undefined ? undefined : checkedEvents(command.events);
      const description = command.description === undefined ? undefined : checkedDescription(command.description);
      const changes = {
        ...(url !== undefined && url !== state.url ? { url } : {}),
        ...(events !== undefined && !sameList(events, state.events) ? { events } : {}),
        ...(description !== undefined && description !== state.description ? { description } : {}),
      };
      if (Object.keys(changes).length === 0) return [];
      return [{ type: WebhookEventTypes.updated, data: { ...base, ...changes, updatedBy: command.by ?? '', updatedAt: command.at } }];
    }
    case 'disable': {
      existing(state, command, command.family);
      if (state.status === 'disabled') return [];
      return [
        {
          type: WebhookEventTypes.disabled,
          data: { ...base, reason: command.reason, consecutiveFailures: command.consecutiveFailures ?? null, disabledBy: command.by, disabledAt: command.at },
        },
      ];
    }
    case 'enable': {
      existing(state, command, 'named');
      if (state.status === 'active') return [];
      return [{ type: WebhookEventTypes.enabled, data: { ...base, enabledBy: command.by ?? '', enabledAt: command.at } }];
    }
    case 'rotateSecret': {
      existing(state, command, 'named');
      return [
        {
          type: WebhookEventTypes.secretRotated,
          data: {
            ...base,
            sealedSecret: command.sealedSecret,
            previousSecretExpiresAt: command.previousSecretExpiresAt,
            rotatedBy: command.by ?? '',
            rotatedAt: command.at,
          },
        },
      ];
    }
    case 'delete': {
      existing(state, command, command.family, command.family === 'legacy' ? WebhookMessages.recordToDeleteNotFound : undefined);
      return [{ type: WebhookEventTypes.deleted, data: { ...base, deletedBy: command.by ?? '', deletedAt: command.at } }];
    }
  }
}

export const webhookDecider: Decider<WebhookCommand, WebhookEvent, WebhookState> = { initialState, evolve, decide };

export const webhookStream = (subscriptionId: string) => `webhook-${subscriptionId}`;

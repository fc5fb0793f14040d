import type { Actor, CollectionCommand } from '../../domain/collection/commands.ts';
import { collectionDecider } from '../../domain/collection/decider.ts';
import type { RecipientDefinition } from '../../domain/collection/definition.ts';
import type { CollectionOrigin } from '../../domain/collection/enums.ts';
import { collectionStream } from '../../domain/collection/events.ts';
import type { CollectionState } from '../../domain/collection/state.ts';
import type { MessageChannel } from '../../domain/messaging/events.ts';
import type { ReadProvenance } from '../../domain/shared/provenance.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { handleCommand, loadState, type Written } from '../command-handler.ts';
import type { AppContext } from '../context.ts';
import { actorOf, recipientActor, SYSTEM_ACTOR, type Caller } from './actor.ts';
import { resolveDefinition, resolveRecipient, type CreateCollectionInput, type RecipientInput } from './definition.ts';
import { recipientLink } from './links.ts';
import { suggestFormAnswers } from './form/suggestions.ts';

export type App = Pick<AppContext, 'store' | 'ids' | 'clock' | 'config' | 'db'>;
export type Without<C> = C extends unknown ? Omit<C, 'organizationId' | 'actor' | 'at'> : never;

/** A recipient's raw link, handed out only on creation, on adding the recipient and on reissue. */
export interface RecipientLinkOut {
  recipientId: string;
  token: string;
  url: string;
}

export async function runCollectionCommand(
  app: Pick<AppContext, 'store' | 'clock'>,
  organizationId: string,
  collectionId: string,
  actor: Actor,
  command: Without<CollectionCommand>,
): Promise<Written<CollectionState>> {
  const full = { ...command, organizationId, actor, at: app.clock.now().toISOString() } as CollectionCommand;
  const { position, state } = await handleCommand(app.store, collectionStream(collectionId), collectionDecider, full);
  return { position, state };
}

/**
 * Throws the refusal the decider would give `command` on `state`, appending nothing: a route
 * asks it before it reads a body (a recipient's upload), so a file the command would refuse is
 * never received, stored or analysed. The command itself still decides when it runs.
 */
export function refusalBefore(app: Pick<AppContext, 'clock'>, state: CollectionState, actor: Actor, command: Without<CollectionCommand>): void {
  collectionDecider.decide({ ...command, organizationId: state.organizationId!, actor, at: app.clock.now().toISOString() } as CollectionCommand, state);
}

export async function loadCollection(app: Pick<AppContext, 'store'>, collectionId: string): Promise<CollectionState> {
  return (await loadState(app.store, collectionStream(collectionId), collectionDecider)).state;
}

const linksOf = (app: Pick<AppContext, 'config'>, collectionId: string, recipients: readonly { recipientId: string }[]): RecipientLinkOut[] =>
  recipients.map(({ recipientId }) => {
    const { token, url } = recipientLink(app, collectionId, recipientId, 1);
    return { recipientId, token, url };
  });

/**
 * `options.actor`: who creates it when not the caller's credential (the public form and pipelines
 * are SYSTEM); `options.collectionId`: an id derived by the caller, so that a retry after a crash
 * finds the collection it created instead of opening a second one; `options.origin` PUBLIC_FORM:
 * an intake (docs/public-form.md), with nothing suggested from the registry or earlier answers.
 */
export async function createCollection(
  app: App,
  caller: Caller,
  input: CreateCollectionInput,
  options: { actor?: Actor; collectionId?: string; origin?: CollectionOrigin } = {},
): Promise<Written<CollectionState> & { links: RecipientLinkOut[] }> {
  const collectionId = options.collectionId ?? app.ids.objectId();
  const actor = options.actor ?? actorOf(caller);
  const publicForm = options.origin === 'PUBLIC_FORM';
  const resolved = await resolveDefinition(app, caller, collectionId, input, { actor, publicForm });
  // FORM items get their suggestions (what the service already knows of the registry) as they are
  // created; never on a public form, whose visitor may have typed somebody else's CPF.
  const definition = publicForm ? resolved.definition : await suggestFormAnswers(app, caller.organizationId, resolved.definition);
  const written = await runCollectionCommand(app, caller.organizationId, collectionId, actor, {
    type: 'CreateCollection',
    collectionId,
    definition,
    send: input.send,
    ...(resolved.intake && { intake: resolved.intake }),
  });
  return { ...written, links: linksOf(app, collectionId, definition.recipients) };
}

export const sendCollection = (app: App, caller: Caller, collectionId: string) => runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'SendCollection' });

/** Cancel: a store failure (not a refusal) is the contract's 502 `Não foi possível cancelar a solicitação.` */
export async function cancelCollection(app: App, caller: Caller, collectionId: string, reason: string | null): Promise<Written<CollectionState>> {
  try {
    return await runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'CancelCollection', reason });
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError('upstream', Messages.collectionCancelFailed);
  }
}

export async function addRecipient(app: App, caller: Caller, collectionId: string, input: RecipientInput): Promise<Written<CollectionState> & { link: RecipientLinkOut }> {
  const state = await loadCollection(app, collectionId);
  if (state.collectionId === null || state.organizationId !== caller.organizationId) throw new DomainError('not_found', Messages.collectionNotFound);
  const recipientId = app.ids.objectId();
  const recipient: RecipientDefinition = resolveRecipient(app, collectionId, recipientId, input, state.items);
  const written = await runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'AddRecipient', recipient });
  return { ...written, link: linksOf(app, collectionId, [recipient])[0]! };
}

/** A new link for a recipient (the version goes up); the previous token stops opening the page. */
export async function reissueLink(app: App, caller: Caller, collectionId: string, recipientId: string): Promise<Written<CollectionState> & { link: RecipientLinkOut }> {
  const state = await loadCollection(app, collectionId);
  const current = state.organizationId === caller.organizationId ? state.recipients.find((r) => r.recipientId === recipientId) : undefined;
  // An unknown collection or recipient is refused by the decider (its own texts) before this link is used.
  const { token, url, hash } = recipientLink(app, collectionId, recipientId, (current?.linkVersion ?? 0) + 1);
  const written = await runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'ReissueLink', recipientId, linkHash: hash });
  return { ...written, link: { recipientId, token, url } };
}

/** An operator links a public form's intake to its registry: its answers, consents, checks and files reach it (docs/public-form.md). */
export const linkIntake = (app: App, caller: Caller, collectionId: string) => runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'LinkIntake' });

export const reviewItem = (app: App, caller: Caller, collectionId: string, itemId: string, decision: 'APPROVE' | 'REJECT', reason: string | null) =>
  runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'ReviewItem', itemId, decision, reason });

export const waiveItem = (app: App, caller: Caller, collectionId: string, itemId: string, reason: string | null) =>
  runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'WaiveItem', itemId, reason });

type RecipientRef = { organizationId: string; collectionId: string; recipientId: string };
type Clocked = Pick<AppContext, 'store' | 'clock'>;

export const recordRecipientOpened = (app: Clocked, ref: RecipientRef) =>
  runCollectionCommand(app, ref.organizationId, ref.collectionId, recipientActor(ref.recipientId), { type: 'RecordRecipientOpened', recipientId: ref.recipientId });

/** A file the recipient sent for an item, already received by the registry (receiveDocument with its source). */
export const submitItemDocument = (app: Clocked, input: RecipientRef & { itemId: string; registryDocumentId: string }) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, recipientActor(input.recipientId), {
    type: 'SubmitItemDocument',
    itemId: input.itemId,
    recipientId: input.recipientId,
    registryDocumentId: input.registryDocumentId,
  });

export const recordRecipientNotified = (app: Clocked, input: RecipientRef & { messageId: string; channel: MessageChannel; reminder: boolean; provenance: ReadProvenance }) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, SYSTEM_ACTOR, {
    type: 'RecordRecipientNotified',
    recipientId: input.recipientId,
    messageId: input.messageId,
    channel: input.channel,
    reminder: input.reminder,
    provenance: input.provenance,
  });

export const recordMessageFailed = (app: Clocked, input: RecipientRef & { messageId: string; error: string; notSent: boolean; provenance?: ReadProvenance }) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, SYSTEM_ACTOR, {
    type: 'RecordMessageFailed',
    recipientId: input.recipientId,
    messageId: input.messageId,
    error: input.error,
    notSent: input.notSent,
    provenance: input.provenance,
  });

/** One channel of a message to the recipient failed (after taking it, or before); `next` takes over. */
export const recordMessageChannelFailed = (app: Clocked, input: RecipientRef & { messageId: string; channel: MessageChannel; error: string; next: MessageChannel | null }) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, SYSTEM_ACTOR, {
    type: 'RecordMessageChannelFailed',
    recipientId: input.recipientId,
    messageId: input.messageId,
    channel: input.channel,
    error: input.error,
    next: input.next,
  });

/** Expire when the deadline has passed with an item waiting on a recipient; otherwise nothing is appended (position null). */
export const expireCollection = (app: Clocked, ref: { organizationId: string; collectionId: string }) =>
  runCollectionCommand(app, ref.organizationId, ref.collectionId, SYSTEM_ACTOR, { type: 'ExpireCollection' });

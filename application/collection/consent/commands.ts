import type { ClientOrigin } from '../../../domain/collection/commands.ts';
import type { AppContext } from '../../context.ts';
import { actorOf, recipientActor, type Caller } from '../actor.ts';
import { runCollectionCommand } from '../commands.ts';

/** A recipient accepts the term they were shown, identified by its hash; address and user agent are the evidence. */
export const acceptConsent = (
  app: Pick<AppContext, 'store' | 'clock'>,
  input: { organizationId: string; collectionId: string; recipientId: string; itemId: string; termHash: string; origin: ClientOrigin; userAgent: string | null },
) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, recipientActor(input.recipientId), {
    type: 'AcceptConsent',
    itemId: input.itemId,
    recipientId: input.recipientId,
    termHash: input.termHash,
    ...input.origin,
    userAgent: input.userAgent,
  });

/** The person withdraws a term they accepted, through their link while it is open. */
export const revokeConsentByRecipient = (
  app: Pick<AppContext, 'store' | 'clock'>,
  input: { organizationId: string; collectionId: string; recipientId: string; itemId: string; reason: string | null },
) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, recipientActor(input.recipientId), {
    type: 'RevokeConsent',
    itemId: input.itemId,
    recipientId: input.recipientId,
    reason: input.reason,
  });

/** The organization records a revocation the person asked for elsewhere (by phone, e-mail, at a branch). */
export const revokeConsent = (app: Pick<AppContext, 'store' | 'clock'>, caller: Caller, collectionId: string, itemId: string, reason: string | null) =>
  runCollectionCommand(app, caller.organizationId, collectionId, actorOf(caller), { type: 'RevokeConsent', itemId, recipientId: null, reason });

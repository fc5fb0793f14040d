import type { ClientOrigin } from '../../../domain/collection/commands.ts';
import type { AppContext } from '../../context.ts';
import { recipientActor } from '../actor.ts';
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

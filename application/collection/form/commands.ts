import type { FormValue } from '../../../domain/collection/kinds/form.ts';
import type { AppContext } from '../../context.ts';
import { recipientActor } from '../actor.ts';
import { runCollectionCommand } from '../commands.ts';

/** A recipient's answers to a FORM item (typed values; the page converts its text fields first). */
export const submitForm = (
  app: Pick<AppContext, 'store' | 'clock'>,
  input: { organizationId: string; collectionId: string; recipientId: string; itemId: string; answers: Record<string, FormValue> },
) =>
  runCollectionCommand(app, input.organizationId, input.collectionId, recipientActor(input.recipientId), {
    type: 'SubmitForm',
    itemId: input.itemId,
    recipientId: input.recipientId,
    answers: input.answers,
  });

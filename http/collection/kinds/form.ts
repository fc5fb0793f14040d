import Type from 'typebox';
import { submitForm } from '../../../application/collection/form/commands.ts';
import type { FormValue } from '../../../domain/collection/kinds/form.ts';
import type { CollectionState, ItemState } from '../../../domain/collection/state.ts';
import { route, type RouteSpec } from '../../route.ts';
import { answersFromPage } from './form-page.ts';
import { AnswerParams, AnswerReplies, answerItem, bodyOf, itemFirst, postedByPage } from './form-reply.ts';

const FieldKey = Type.String({ pattern: '^[a-z][a-z0-9_]{0,59}$', description: 'names the input key form.<template>.<key>' });
/** Numbers a form asks or offers (amounts in reais, counts): bounded like every number the API takes. */
const FormNumber = () => Type.Number({ minimum: -1e15, maximum: 1e15 });
const FormValueSchema = Type.Union([Type.String({ maxLength: 10000 }), FormNumber(), Type.Boolean(), Type.Null()]);
const Answers = (description: string) => Type.Record(Type.String(), FormValueSchema, { description });

/** A FORM item's definition, as a template or an ad hoc item gives it. */
export const FormConfigSchema = Type.Object(
  {
    fields: Type.Array(
      Type.Object({
        key: FieldKey,
        label: Type.String({ minLength: 1, maxLength: 200 }),
        type: Type.Union([Type.Literal('NUMBER'), Type.Literal('STRING'), Type.Literal('BOOLEAN'), Type.Literal('DATE')]),
        required: Type.Boolean({ default: true }),
        choices: Type.Union([Type.Array(Type.Union([Type.String({ maxLength: 200 }), FormNumber()]), { minItems: 1, maxItems: 100 }), Type.Null()], { default: null }),
        validation: Type.Union(
          [
            Type.Object({
              min: Type.Optional(FormNumber()),
              max: Type.Optional(FormNumber()),
              minLength: Type.Optional(Type.Integer({ minimum: 0, maximum: 10000 })),
              maxLength: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000 })),
              pattern: Type.Optional(Type.String({ maxLength: 200 })),
            }),
            Type.Null(),
          ],
          { default: null },
        ),
      }),
      { minItems: 1, maxItems: 100 },
    ),
    suggested: Type.Optional(
      Answers('field key -> a value offered beside the question (your own extraction, say); at creation the service adds what it knows of the registry (docs/collection-forms.md)'),
    ),
  },
  { description: 'FORM items: the questions' },
);

export const FormDetailsSchema = Type.Object(
  {
    answers: Answers('field key -> what the person answered (empty until then)'),
    suggested: Answers('field key -> what was suggested beside the question'),
    submittedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { description: 'FORM items: what was suggested and what the person answered' },
);

export function presentFormDetails(_state: CollectionState, item: ItemState): object {
  const form = item.config?.form;
  if (item.kind !== 'FORM' || !form) return {};
  const received = item.details.form;
  return { form: { answers: received?.answers ?? {}, suggested: form.suggested ?? {}, submittedAt: received?.submittedAt ?? null } };
}

/**
 * A FORM's answers, all of them: a hundred fields of a few words each stay far below. Anyone
 * holding a link may post here, so nothing larger is read.
 */
const FORM_ANSWERS_BODY_LIMIT = '64kb';

export const formRoutes: RouteSpec[] = [
  route({
    method: 'post',
    path: '/c/:token/items/:itemId/form',
    summary: "The recipient page's answers to a FORM item; a browser is redirected back to the page",
    description:
      'A browser posts the page (urlencoded, fields `answers[<key>]`: text, a checkbox for BOOLEAN); an API client posts JSON `{"answers": {"<key>": value}}` with typed values. ' +
      'The answers are checked against the form (required, type, choices, min/max, length, pattern): 400 with one Portuguese sentence per wrong field. ' +
      'FORM_SUBMITTED, and the item VALIDATED (AUTOMATIC) or AWAITING_OPERATOR (REVIEW). 404 for an item not asked of this recipient (before the body is read), 409 for an item no longer waiting for answers, 413 for a body over 64 KB.',
    auth: false,
    rawBody: true,
    pageForm: true,
    bodyLimit: FORM_ANSWERS_BODY_LIMIT,
    // The answers are not known yet: an item no longer waiting for them is refused before they are read.
    before: itemFirst((item, recipientId) => ({ type: 'SubmitForm', itemId: item.itemId, recipientId, answers: {} })),
    params: AnswerParams,
    responses: AnswerReplies,
    errors: [404, 409],
    async handle({ app, ctx, params, body }) {
      const posted = bodyOf(body).answers;
      return answerItem(app, ctx, params.token, params.itemId, (ref, item) => {
        const form = item.config?.form;
        const answers = form && postedByPage(ctx) ? answersFromPage(form, posted) : (bodyOf(posted) as Record<string, FormValue>);
        return submitForm(app, { ...ref, itemId: item.itemId, answers });
      });
    },
  }),
];

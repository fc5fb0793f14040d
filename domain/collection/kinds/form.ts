import { DomainError } from '../../shared/errors.ts';
import { entry, itemOf, live, recipientOf } from '../decide-kit.ts';
import { CollectionMessages } from '../messages.ts';
import { advance, isAwaitingRecipient, isResolved, withItem, withRecipient } from '../state.ts';
import { checkFormAnswers, checkFormDefinition } from './form-answers.ts';
import type { CollectionKind } from './kind.ts';

export type FormFieldType = 'NUMBER' | 'STRING' | 'BOOLEAN' | 'DATE';
export type FormValue = string | number | boolean | null;

/** One question of a FORM item. `key` names the input key form.<template>.<key>. */
export interface FormField {
  key: string;
  label: string;
  type: FormFieldType;
  required: boolean;
  /** The only accepted answers, when set. */
  choices: Array<string | number> | null;
  validation: { min?: number; max?: number; minLength?: number; maxLength?: number; pattern?: string } | null;
}

export interface FormDefinition {
  fields: FormField[];
  /**
   * Values offered to the person beside each question (prefilled, marked "sugerido"): what the
   * caller's own extraction found, completed at creation with what the service knows of the
   * registry (docs/collection-forms.md). Personal data: it travels in the sealed definition.
   */
  suggested?: Record<string, FormValue>;
}

/** The latest answers of a FORM item (personal data: stored beside the trail envelope). */
export interface FormItemState {
  answers: Record<string, FormValue>;
  submittedAt: string;
  recipientId: string | null;
}

export interface FormPayloads {
  /** Keys answered, never the values: the trail and its webhooks carry no personal data. */
  FormSubmitted: { fields: string[] };
}

/**
 * Stored beside the envelope for evolve (erasable personal data). `document`: the subject's
 * CPF/CNPJ, so the answers are sealed with the key of the person or company they describe.
 */
export interface FormExtras {
  FormSubmitted: { answers: Record<string, FormValue>; document: string };
}

/** Ad hoc collections (no template) file their answers under this name: form.avulso.<field>. */
export const AD_HOC_FORM = 'avulso';
/** The policy input key of a form field: form.<template slug>.<field key>. */
export const formInputKey = (templateSlug: string | null, fieldKey: string) => `form.${templateSlug ?? AD_HOC_FORM}.${fieldKey}`;

export type FormCommand = { type: 'SubmitForm'; itemId: string; recipientId: string | null; answers: Record<string, FormValue> };

/**
 * A FORM item is answered once per request: the answers validate it (AUTOMATIC) or wait for the
 * operator (REVIEW); an operator's rejection asks for them again.
 */
export const formKind: CollectionKind = {
  decide(command, state, complete) {
    if (command.type !== 'SubmitForm') return null;
    const collectionId = live(state, command.organizationId);
    const item = itemOf(state, command.itemId);
    if (item.kind !== 'FORM' || !item.config?.form) throw new DomainError('invalid', CollectionMessages.notAForm);
    if (command.recipientId !== null && !recipientOf(state, command.recipientId).itemIds.includes(item.itemId)) {
      throw new DomainError('not_found', CollectionMessages.itemNotOfRecipient);
    }
    if (isResolved(item)) throw new DomainError('conflict', CollectionMessages.itemResolved);
    if (!isAwaitingRecipient(item)) throw new DomainError('conflict', CollectionMessages.formAwaitingReview);
    const answers = checkFormAnswers(item.config.form, command.answers);
    const where = { itemId: item.itemId, recipientId: command.recipientId };
    const submitted = entry('FormSubmitted', command, collectionId, where, { fields: Object.keys(answers) }, { answers, document: state.subject.document });
    return complete(command, state, [submitted]);
  },
  evolve(state, event) {
    if (event.type !== 'FormSubmitted') return null;
    const { data } = event;
    // The mode decides what the answers do: AUTOMATIC accepts them, REVIEW hands them to the operator.
    const status = state.mode === 'REVIEW' ? 'AWAITING_OPERATOR' : 'VALIDATED';
    const form: FormItemState = { answers: data.answers, submittedAt: data.occurredAt, recipientId: data.recipientId };
    const next = withItem(state, data.itemId, (item) => ({
      ...item,
      status,
      resendReason: null,
      resolvedAt: status === 'VALIDATED' ? data.occurredAt : item.resolvedAt,
      details: { ...item.details, form },
    }));
    const started = { ...next, status: next.status === 'SENT' ? ('IN_PROGRESS' as const) : next.status };
    return withRecipient(started, data.recipientId, (r) => ({ ...r, activity: advance(r.activity, 'IN_PROGRESS') }));
  },
  validateItem(item) {
    if (item.kind !== 'FORM') {
      if (item.config?.form) throw new DomainError('invalid', CollectionMessages.formOnlyOnForm);
      return;
    }
    checkFormDefinition(item.config?.form);
  },
};

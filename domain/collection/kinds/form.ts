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

/** Stored beside the envelope for evolve (erasable personal data). */
export interface FormExtras {
  FormSubmitted: { answers: Record<string, FormValue> };
}

export type FormCommand = { type: 'SubmitForm'; itemId: string; recipientId: string | null; answers: Record<string, FormValue> };

export const formKind: CollectionKind = {
  decide: () => null,
  evolve: () => null,
  validateItem: () => undefined,
};

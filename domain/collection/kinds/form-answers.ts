import { Ajv, type CodeOptions, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { RE2JS } from 're2js';
import { DomainError } from '../../shared/errors.ts';
import { CollectionMessages as M } from '../messages.ts';
import type { FormDefinition, FormField, FormValue } from './form.ts';

/**
 * A FORM item's rules: the definition an operator writes (checked when a template or a collection
 * is created) and the answers a person gives, validated with ajv against a JSON Schema built from
 * the definition, so the server applies exactly the rules the page's HTML attributes announce.
 */

const FIELD_KEY = /^[a-z][a-z0-9_]{0,59}$/;
// Answers are bounded even when the form sets no limit, as every value the API takes and returns is.
const MAX_TEXT_ANSWER = 10000;
const MAX_NUMBER_ANSWER = 1e15;
const TYPES = ['NUMBER', 'STRING', 'BOOLEAN', 'DATE'];
const invalid = (message: string) => new DomainError('invalid', message);

/**
 * A field's `pattern` is written by a tenant and run on answers anyone with the link sends: it
 * runs on RE2 (re2js), whose time is linear in the text whatever the pattern, never on the
 * native engine, where `^(a+)+$` against 40 characters takes hours. JavaScript's escapes
 * (`\u00e9`) are translated; what RE2 cannot run in linear time (backreferences, lookaround) is
 * refused when the form is defined.
 */
const linearRegExp: NonNullable<CodeOptions['regExp']> = Object.assign((pattern: string) => RE2JS.compile(RE2JS.translateRegExp(pattern)), { code: 'RE2JS.compile' });

function compiles(pattern: string): boolean {
  try {
    linearRegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

function checkField(field: FormField): void {
  const { key, type, choices, validation } = field;
  if (typeof key !== 'string' || !FIELD_KEY.test(key)) throw invalid(M.formFieldKey);
  if (typeof field.label !== 'string' || !field.label.trim()) throw invalid(M.formFieldLabel(key));
  if (!TYPES.includes(type)) throw invalid(M.formFieldType(key));
  const v = validation ?? {};
  const numeric = v.min !== undefined || v.max !== undefined;
  const textual = v.minLength !== undefined || v.maxLength !== undefined || v.pattern !== undefined;
  if ((numeric && type !== 'NUMBER') || (textual && type !== 'STRING')) throw invalid(M.formValidationMismatch(key));
  if (v.min !== undefined && v.max !== undefined && v.min > v.max) throw invalid(M.formValidationMismatch(key));
  if (v.minLength !== undefined && v.maxLength !== undefined && v.minLength > v.maxLength) throw invalid(M.formValidationMismatch(key));
  if (v.pattern !== undefined && !compiles(v.pattern)) throw invalid(M.formBadPattern(key));
  if (choices !== null && choices !== undefined) {
    const kind = type === 'NUMBER' ? 'number' : type === 'STRING' ? 'string' : null;
    if (!kind || choices.length === 0 || choices.some((c) => typeof c !== kind) || new Set(choices).size !== choices.length) throw invalid(M.formBadChoices(key));
  }
}

/** Refuses a FORM item's definition that the page could not ask or the server could not check. */
export function checkFormDefinition(form: FormDefinition | undefined): void {
  if (!form || !Array.isArray(form.fields) || form.fields.length === 0) throw invalid(M.formRequired);
  form.fields.forEach(checkField);
  if (new Set(form.fields.map((f) => f.key)).size !== form.fields.length) throw invalid(M.formDuplicateField);
  for (const [key, value] of Object.entries(form.suggested ?? {})) {
    const field = form.fields.find((f) => f.key === key);
    if (!field) throw invalid(M.formUnknownSuggestion(key));
    if (value !== null && fieldErrors(form, { [key]: value }).some((e) => e.instancePath === `/${key}`)) throw invalid(M.formBadSuggestion(key));
  }
}

function fieldSchema(field: FormField): Record<string, unknown> {
  const v = field.validation ?? {};
  const choices = field.choices ? { enum: field.choices } : {};
  switch (field.type) {
    case 'NUMBER':
      return { type: 'number', minimum: v.min ?? -MAX_NUMBER_ANSWER, maximum: v.max ?? MAX_NUMBER_ANSWER, ...choices };
    case 'STRING':
      return {
        type: 'string',
        ...(v.minLength !== undefined && { minLength: v.minLength }),
        maxLength: v.maxLength ?? MAX_TEXT_ANSWER,
        ...(v.pattern !== undefined && { pattern: v.pattern }),
        ...choices,
      };
    case 'BOOLEAN':
      return { type: 'boolean' };
    case 'DATE':
      return { type: 'string', format: 'date' };
  }
}

/** The JSON Schema of a definition's answers: one property per field, the required ones listed. */
export function formJsonSchema(form: FormDefinition): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(form.fields.map((f) => [f.key, fieldSchema(f)])),
    required: form.fields.filter((f) => f.required).map((f) => f.key),
  };
}

const ajv = new Ajv({ allErrors: true, strict: true, code: { regExp: linearRegExp } });
addFormatsModule.default(ajv, ['date']);
// Definitions are few and repeat (every answer to a template's item): compile each once.
const compiled = new Map<string, ValidateFunction>();
const COMPILED_MAX = 500;

function validatorOf(form: FormDefinition): ValidateFunction {
  const key = JSON.stringify(form.fields);
  let validate = compiled.get(key);
  if (!validate) {
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    validate = ajv.compile(formJsonSchema(form));
    compiled.set(key, validate);
  }
  return validate;
}

function fieldErrors(form: FormDefinition, answers: Record<string, FormValue>): ErrorObject[] {
  const validate = validatorOf(form);
  return validate(answers) ? [] : (validate.errors ?? []);
}

/** One Portuguese sentence per ajv error, naming the field by its label. */
function messageOf(field: FormField, error: ErrorObject): string {
  const label = field.label;
  const limit = Number(error.params.limit);
  switch (error.keyword) {
    case 'required':
      return M.formAnswerRequired(label);
    case 'enum':
      return M.formAnswerChoice(label, field.choices ?? []);
    case 'minimum':
      return M.formAnswerMin(label, limit);
    case 'maximum':
      return M.formAnswerMax(label, limit);
    case 'minLength':
      return M.formAnswerMinLength(label, limit);
    case 'maxLength':
      return M.formAnswerMaxLength(label, limit);
    case 'pattern':
      return M.formAnswerPattern(label);
    default:
      // type and format: the answer is not of the field's kind.
      return M.formAnswerType(label, field.type);
  }
}

/**
 * The answers to keep, or a refusal listing one message per wrong field (in the form's order).
 * Keys the form does not ask are dropped; null or empty answers count as not given.
 */
export function checkFormAnswers(form: FormDefinition, given: Record<string, FormValue>): Record<string, FormValue> {
  const answers: Record<string, FormValue> = {};
  for (const field of form.fields) {
    const value = given?.[field.key];
    if (value !== null && value !== undefined && value !== '') answers[field.key] = value;
  }
  const errors = fieldErrors(form, answers);
  if (errors.length === 0) return answers;
  const messages = form.fields.flatMap((field) => {
    const error = errors.find((e) => e.instancePath === `/${field.key}` || (e.keyword === 'required' && e.params.missingProperty === field.key));
    return error ? [messageOf(field, error)] : [];
  });
  throw invalid(messages.join(' '));
}

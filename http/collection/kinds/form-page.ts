import type { FormDefinition, FormField, FormValue } from '../../../domain/collection/kinds/form.ts';
import { isAwaitingRecipient } from '../../../domain/collection/state.ts';
import { escape } from '../../../domain/shared/html.ts';
import type { ItemPage } from './page.ts';

/** The name of a field's control: the page posts `answers[<key>]`, read back as one object. */
const nameOf = (field: FormField) => `answers[${field.key}]`;
const show = (value: FormValue | undefined) => (value === true ? 'Sim' : value === false ? 'Não' : value === null || value === undefined ? '' : String(value));
const attr = (name: string, value: string | number | undefined) => (value === undefined ? '' : ` ${name}="${escape(String(value))}"`);

/** The HTML control of a field: its attributes announce the rules the server checks (ajv). */
function control(field: FormField, value: FormValue | undefined): string {
  const required = field.required ? ' required' : '';
  const v = field.validation ?? {};
  if (field.choices) {
    const options = field.choices.map((c) => `<option value="${escape(String(c))}"${value === c ? ' selected' : ''}>${escape(String(c))}</option>`).join('');
    return `<select name="${nameOf(field)}"${required}><option value="">Selecione</option>${options}</select>`;
  }
  switch (field.type) {
    case 'BOOLEAN':
      // An unchecked box sends nothing, which reads as "não": the box itself is never required.
      return `<input type="checkbox" name="${nameOf(field)}" value="true" style="width:auto"${value === true ? ' checked' : ''}>`;
    case 'NUMBER':
      return `<input type="number" step="any" name="${nameOf(field)}"${attr('min', v.min)}${attr('max', v.max)}${attr('value', value === undefined || value === null ? undefined : String(value))}${required}>`;
    case 'DATE':
      return `<input type="date" name="${nameOf(field)}"${attr('value', typeof value === 'string' ? value : undefined)}${required}>`;
    case 'STRING':
      return `<input type="text" name="${nameOf(field)}"${attr('minlength', v.minLength)}${attr('maxlength', v.maxLength)}${attr('pattern', v.pattern)}${attr('value', typeof value === 'string' ? value : undefined)}${required}>`;
  }
}

function fieldHtml(field: FormField, answer: FormValue | undefined, suggestion: FormValue | undefined): string {
  const hint = suggestion === undefined ? '' : ` <small class="sugerido" data-field="${field.key}">Sugerido: ${escape(show(suggestion))}</small>`;
  return `<p><label>${escape(field.label)}${field.required && field.type !== 'BOOLEAN' ? ' *' : ''}${hint}<br>${control(field, answer ?? suggestion)}</label></p>`;
}

/**
 * A FORM item on the recipient page: the questions while the item waits on the person (prefilled
 * with their previous answers after a rejection, else with the suggestions, each suggestion shown
 * beside its field), then what they answered.
 */
export const formPage: ItemPage = {
  render({ token, item }) {
    const form = item.config?.form;
    if (!form) return null;
    const answers = item.details.form?.answers ?? {};
    if (!isAwaitingRecipient(item)) {
      if (!item.details.form) return null;
      const rows = form.fields.filter((f) => f.key in answers).map((f) => `<dt>${escape(f.label)}</dt><dd data-field="${f.key}">${escape(show(answers[f.key]))}</dd>`);
      return `<dl class="respostas">${rows.join('')}</dl>`;
    }
    const fields = form.fields.map((f) => fieldHtml(f, answers[f.key], form.suggested?.[f.key]));
    return `<form method="post" action="/c/${encodeURIComponent(token)}/items/${item.itemId}/form">${fields.join('\n')}<button type="submit">Enviar respostas</button></form>`;
  },
};

const NUMERIC = /^[-+]?\d+([.,]\d+)?$/;

function fromText(field: FormField, text: unknown): FormValue {
  if (field.type === 'BOOLEAN') return ['true', 'on', 'sim', '1'].includes(String(text ?? '').toLowerCase());
  if (typeof text !== 'string' || text.trim() === '') return null;
  const trimmed = text.trim();
  // Not a number: kept as text, so the server's check names the field ("deve ser um número").
  if (field.type === 'NUMBER') return NUMERIC.test(trimmed) ? Number(trimmed.replace(',', '.')) : trimmed;
  return trimmed;
}

/** The page's text fields as typed answers (an API client sends JSON values and is taken as it is). */
export function answersFromPage(form: FormDefinition, posted: unknown): Record<string, FormValue> {
  const texts = posted !== null && typeof posted === 'object' ? (posted as Record<string, unknown>) : {};
  return Object.fromEntries(form.fields.map((f) => [f.key, fromText(f, texts[f.key])]));
}

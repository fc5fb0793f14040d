import type { CollectionDefinition, ItemDefinition } from '../../../domain/collection/definition.ts';
import { checkFormAnswers } from '../../../domain/collection/kinds/form-answers.ts';
import { formInputKey, type FormDefinition, type FormValue } from '../../../domain/collection/kinds/form.ts';
import type { RegistryView } from '../../../projections/registry/queries.ts';
import { findRegistry } from '../../../projections/registry/queries.ts';
import { collectionInputValues } from '../../../projections/collection/inputs-queries.ts';
import type { AppContext } from '../../context.ts';

/** What the service knows of the subject: the collection's own name and document, the registry's other data. */
type Subject = Pick<RegistryView, 'name' | 'document' | 'entityType' | 'basicData' | 'contacts'>;
type Known = (registry: Subject) => FormValue | undefined;
const contact =
  (pick: 'email' | 'phone'): Known =>
  (r) =>
    r.contacts.find((c) => c[pick])?.[pick] ?? undefined;

/** Field keys a form may use to ask what the registry already holds (docs/collection-forms.md). */
const FROM_REGISTRY: Record<string, Known> = {
  nome: (r) => r.name,
  nome_completo: (r) => r.name,
  razao_social: (r) => r.name,
  nome_fantasia: (r) => r.basicData.tradeName ?? undefined,
  documento: (r) => r.document,
  cpf: (r) => (r.entityType === 'PERSON' ? r.document : undefined),
  cnpj: (r) => (r.entityType === 'COMPANY' ? r.document : undefined),
  data_nascimento: (r) => (r.entityType === 'PERSON' ? (r.basicData.birthOrFoundationDate ?? undefined) : undefined),
  data_fundacao: (r) => (r.entityType === 'COMPANY' ? (r.basicData.birthOrFoundationDate ?? undefined) : undefined),
  endereco: (r) => r.basicData.address ?? undefined,
  cidade: (r) => r.basicData.city ?? undefined,
  uf: (r) => r.basicData.state ?? undefined,
  cep: (r) => r.basicData.zipCode ?? undefined,
  email: contact('email'),
  telefone: contact('phone'),
};

/** A suggestion is kept only when it is a valid answer to its field (a choice, in range, of the type). */
function fits(form: FormDefinition, key: string, value: FormValue): boolean {
  const field = form.fields.find((f) => f.key === key)!;
  try {
    checkFormAnswers({ fields: [{ ...field, required: true }] }, { [key]: value });
    return true;
  } catch {
    return false;
  }
}

function suggest(form: FormDefinition, templateSlug: string | null, earlier: Record<string, unknown>, registry: Subject): FormDefinition {
  const suggested: Record<string, FormValue> = {};
  for (const field of form.fields) {
    const answered = earlier[formInputKey(templateSlug, field.key)] as FormValue | undefined;
    const known = FROM_REGISTRY[field.key]?.(registry);
    // The caller's own suggestion first, then what this registry answered before, then its record.
    const value = [form.suggested?.[field.key], answered, known].find((v) => v !== undefined && v !== null && fits(form, field.key, v));
    if (value !== undefined) suggested[field.key] = value;
  }
  return { ...form, suggested };
}

/**
 * Completes the suggestions of a collection's FORM items when it is created: earlier answers of
 * the same registry to the same template's fields (the inputs read model) and the registry's own
 * data. They are stored with the item (sealed with the definition) and shown beside the answers.
 */
export async function suggestFormAnswers(app: Pick<AppContext, 'db'>, organizationId: string, definition: CollectionDefinition): Promise<CollectionDefinition> {
  if (!definition.items.some((item) => item.kind === 'FORM' && item.config?.form)) return definition;
  const [earlier, registry] = await Promise.all([collectionInputValues(app.db, organizationId, definition.registryId), findRegistry(app.db, organizationId, definition.registryId)]);
  const slug = definition.template?.slug ?? null;
  // A registry created with this collection may not be in the read model yet: its name and document are the definition's.
  const subject: Subject = { basicData: registry?.basicData ?? {}, contacts: registry?.contacts ?? [], ...definition.subject };
  const items = definition.items.map((item): ItemDefinition => {
    const form = item.config?.form;
    return item.kind === 'FORM' && form ? { ...item, config: { ...item.config, form: suggest(form, slug, earlier, subject) } } : item;
  });
  return { ...definition, items };
}

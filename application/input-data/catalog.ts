import type { ExpectedDocumentType } from '../../domain/collection/enums.ts';
import type { CollectionTemplate } from '../../domain/collection-template/template.ts';
import { consentField, documentFields, formField, IDENTITY_FIELD, PROPOSAL_FIELDS, UNKEYED_DOCUMENT_TYPES, type InputField } from '../../domain/input-data/fields.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { findProductByKey } from '../../projections/catalog/queries.ts';
import { listTemplates } from '../../projections/collection-template/queries.ts';
import { consentTypesSeen, extractedDocumentTypes } from '../../projections/input-data/queries.ts';
import type { AppContext } from '../context.ts';

export interface CatalogFilter {
  templateSlug?: string;
  productKey?: string;
}

/** An organization has tens of templates (projections/collection-template/queries.ts): all of them in one page. */
const ALL_TEMPLATES = { skip: 0, take: 10_000 };

const formFieldsOf = (template: CollectionTemplate): InputField[] =>
  template.items.filter((item) => item.kind === 'FORM').flatMap((item) => (item.config?.form?.fields ?? []).map((f) => formField(template.slug, template.name, f)));

const consentTypesOf = (templates: readonly CollectionTemplate[]) =>
  templates.flatMap((t) => t.items.flatMap((item) => (item.kind === 'CONSENT' && item.config?.consent ? [item.config.consent.type] : [])));

/** One field per key: two forms of a template asking the same field share its key (docs/collection-forms.md). */
const unique = (fields: InputField[]) => [...new Map(fields.map((f) => [f.key, f])).values()];

/**
 * GET /v1/input-data/catalog: every key the organization can have, grouped as the spec orders
 * the sources: proposal keys, form keys of its templates (all, or those of `templateSlug`, or
 * those the product `productKey` asks for, or both filters at once), document keys of the types
 * its document analysis has already named, verification keys (identity, and each consent type of
 * its templates or already accepted). An unknown template or product is 400 with the spec's text.
 */
export async function inputCatalog(app: Pick<AppContext, 'db' | 'log'>, organizationId: string, filter: CatalogFilter): Promise<InputField[]> {
  const read = async () => {
    const [templates, product, documentTypes, consentsSeen] = await Promise.all([
      listTemplates(app.db, organizationId, ALL_TEMPLATES).then((page) => page.items),
      filter.productKey === undefined ? null : findProductByKey(app.db, organizationId, filter.productKey),
      extractedDocumentTypes(app.db, organizationId),
      consentTypesSeen(app.db, organizationId),
    ]);
    return { templates, product, documentTypes, consentsSeen };
  };
  let found: Awaited<ReturnType<typeof read>>;
  try {
    found = await read();
  } catch (error) {
    app.log.error({ err: error, organizationId }, 'input data catalog could not be read');
    throw new DomainError('upstream', Messages.catalogLoadFailed);
  }
  const { templates, product, documentTypes, consentsSeen } = found;
  if (filter.templateSlug !== undefined && !templates.some((t) => t.slug === filter.templateSlug)) throw new DomainError('invalid', Messages.invalidTemplate);
  if (filter.productKey !== undefined && !product) throw new DomainError('invalid', Messages.invalidProduct);
  const forms = templates.filter((t) => (filter.templateSlug === undefined || t.slug === filter.templateSlug) && (!product || product.collectionTemplateSlugs.includes(t.slug)));
  const consentTypes = [...new Set([...consentTypesOf(templates), ...consentsSeen])].sort();
  const documents = documentTypes.filter((type) => !UNKEYED_DOCUMENT_TYPES.includes(type as ExpectedDocumentType)).sort();
  return [...PROPOSAL_FIELDS, ...unique(forms.flatMap(formFieldsOf)), ...documents.flatMap((type) => documentFields(type as ExpectedDocumentType)), IDENTITY_FIELD, ...consentTypes.map(consentField)];
}

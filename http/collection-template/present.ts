import type { Static } from 'typebox';
import type { CollectionTemplate } from '../../domain/collection-template/template.ts';
import type { TemplateMetrics } from '../../projections/collection-template/queries.ts';
import type { TemplateSchema } from './schemas.ts';

export function presentTemplate(template: CollectionTemplate, metrics: TemplateMetrics, publicBaseUrl: string): Static<typeof TemplateSchema> {
  const { templateId, ...rest } = template;
  // The page that answers it comes with FORM items (the next issue); the address is fixed now.
  const publicFormUrl = template.publicForm ? `${publicBaseUrl.replace(/(?<!\/)\/+$/, '')}/formulario/${templateId}` : null;
  return { id: templateId, ...rest, publicFormUrl, metrics };
}

import type { Knex } from 'knex';
import type { CollectionEventData } from '../../domain/collection/events.ts';
import { CollectionTemplateEventTypes, type CollectionTemplateEvent } from '../../domain/collection-template/events.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const COLLECTION_TEMPLATE_PROJECTION = 'collection-template';

async function applyTemplate(event: CollectionTemplateEvent, trx: Knex.Transaction): Promise<void> {
  switch (event.type) {
    case 'CollectionTemplateCreated':
    case 'CollectionTemplateVersioned': {
      const { templateId, organizationId, slug, version, content, userId, createdAt } = event.data;
      await trx('collection_template_versions')
        .insert({ template_id: templateId, version, organization_id: organizationId, content: JSON.stringify(content), created_by: userId, created_at: createdAt })
        .onConflict(['template_id', 'version'])
        .ignore();
      const latest = { name: content.name, version, updated_at: createdAt };
      if (event.type === 'CollectionTemplateVersioned') {
        await trx('collection_template_templates').where({ template_id: templateId }).update(latest);
        return;
      }
      await trx('collection_template_templates')
        .insert({ template_id: templateId, organization_id: organizationId, slug, enabled: true, created_at: createdAt, ...latest })
        .onConflict('template_id')
        .merge();
      return;
    }
    case 'CollectionTemplateSwitched': {
      const { organizationId, templateId, slug, scope, enabled, switchedAt } = event.data;
      if (scope === 'ORGANIZATION') {
        await trx('collection_template_templates').where({ template_id: templateId }).update({ enabled, updated_at: switchedAt });
        return;
      }
      await trx('collection_template_switches').insert({ organization_id: organizationId, slug, enabled, updated_at: switchedAt }).onConflict(['organization_id', 'slug']).merge();
    }
  }
}

/** CollectionCreated names its template in payload.template (null for ad hoc items). */
async function applyCollection(event: RecordedEvent, trx: Knex.Transaction): Promise<void> {
  const data = event.data as unknown as CollectionEventData<{ template?: string | null }>;
  if (event.type === 'CollectionCreated') {
    if (!data.payload.template) return;
    await trx('collection_template_usage')
      .insert({ collection_id: data.collectionId, organization_id: data.organizationId, slug: data.payload.template, created_at: data.occurredAt })
      .onConflict('collection_id')
      .ignore();
    return;
  }
  await trx('collection_template_usage').where({ collection_id: data.collectionId }).whereNull('completed_at').update({ completed_at: data.occurredAt });
}

const templateTypes = new Set<string>(Object.values(CollectionTemplateEventTypes));

/** Own templates (latest and every version), platform switches, and usage for the metrics. */
export const collectionTemplateProjection: Projection = {
  name: COLLECTION_TEMPLATE_PROJECTION,
  eventTypes: [...templateTypes, 'CollectionCreated', 'CollectionCompleted'],
  tables: ['collection_template_templates', 'collection_template_versions', 'collection_template_switches', 'collection_template_usage'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
    for (const event of events) {
      if (templateTypes.has(event.type)) await applyTemplate({ type: event.type, data: event.data } as unknown as CollectionTemplateEvent, trx);
      else await applyCollection(event, trx);
    }
  },
};

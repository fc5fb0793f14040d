import type { Knex } from 'knex';
import { consentInputKey } from '../../domain/collection/kinds/consent.ts';
import { formInputKey } from '../../domain/collection/kinds/form.ts';
import type { CollectionModuleEvent } from '../../domain/collection/payloads.ts';
import { PERSONAL_DATA_ERASED, SUBJECTS_METADATA, type PersonalDataErased } from '../../platform/personal-data/index.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import type { Projection, ProjectionContext } from '../../platform/projections/projection.ts';
import { collectionStream } from '../../domain/collection/events.ts';

export const COLLECTION_INPUTS_PROJECTION = 'collection-inputs';

type InputRow = { key: string; value: unknown; source: 'FORM' | 'VERIFICATION'; subjectId: string | null };

/**
 * An input is replaced only by a value as recent or newer, so a replayed older event changes
 * nothing. A public form's intake no operator linked gives its registry nothing yet.
 */
async function keep(trx: Knex.Transaction, data: CollectionModuleEvent['data'], rows: InputRow[]): Promise<void> {
  const source = await trx('collection_input_sources').where({ collection_id: data.collectionId }).first();
  if (!source?.linked || rows.length === 0) return;
  await trx('collection_inputs')
    .insert(
      rows.map((row) => ({
        organization_id: source.organization_id,
        registry_id: source.registry_id,
        key: row.key,
        value: JSON.stringify(row.value),
        source: row.source,
        collection_id: data.collectionId,
        item_id: data.itemId,
        occurred_at: data.occurredAt,
        subject_id: row.subjectId,
      })),
    )
    .onConflict(['organization_id', 'registry_id', 'key'])
    .merge()
    .where('collection_inputs.occurred_at', '<=', trx.raw('excluded.occurred_at'));
}

async function apply(trx: Knex.Transaction, recorded: RecordedEvent): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as unknown as CollectionModuleEvent;
  switch (event.type) {
    case 'CollectionCreated': {
      const { collectionId, organizationId, payload } = event.data;
      await trx('collection_input_sources')
        .insert({ collection_id: collectionId, organization_id: organizationId, registry_id: payload.registryId, template_slug: payload.template, linked: payload.intake !== 'UNLINKED' })
        .onConflict('collection_id')
        .ignore();
      return;
    }
    case 'FormSubmitted': {
      // Answers are sealed with the subject's key; an erased event reads {} and adds nothing.
      const subjectId = (recorded.metadata[SUBJECTS_METADATA] as string[] | undefined)?.[0] ?? null;
      const source = await trx('collection_input_sources').where({ collection_id: event.data.collectionId }).first('template_slug');
      const rows = Object.entries(event.data.answers ?? {}).map(([field, value]): InputRow => ({ key: formInputKey(source?.template_slug ?? null, field), value, source: 'FORM', subjectId }));
      return keep(trx, event.data, rows);
    }
    case 'ConsentAccepted':
    case 'ConsentRevoked':
      // That a term was accepted (or withdrawn) is not personal data (ip and user agent stay in the event).
      return keep(trx, event.data, [{ key: consentInputKey(event.data.payload.type), value: event.type === 'ConsentAccepted', source: 'VERIFICATION', subjectId: null }]);
    default:
      return;
  }
}

const INPUT_EVENTS: ReadonlySet<string> = new Set(['FormSubmitted', 'ConsentAccepted', 'ConsentRevoked']);

/** An intake linked: what it received before the link reaches its registry now, in the order it came. */
async function link(trx: Knex.Transaction, context: ProjectionContext | undefined, linked: RecordedEvent): Promise<void> {
  const { collectionId } = linked.data as unknown as CollectionModuleEvent['data'];
  await trx('collection_input_sources').where({ collection_id: collectionId }).update({ linked: true });
  if (!context) throw new Error('the collection inputs projection reads a linked intake from its stream: it needs its context');
  for (const recorded of await context.streamUpTo(collectionStream(collectionId), linked.position)) {
    if (INPUT_EVENTS.has(recorded.type)) await apply(trx, recorded);
  }
}

/**
 * The policy inputs a collection produced for its registry (docs/collection-forms.md): the latest
 * answer to each form field and every accepted consent, per organization and registry. A public
 * form's intake adds its own only when an operator links it (docs/public-form.md).
 */
export const collectionInputsProjection: Projection = {
  name: COLLECTION_INPUTS_PROJECTION,
  eventTypes: ['CollectionCreated', 'FormSubmitted', 'ConsentAccepted', 'ConsentRevoked', 'IntakeLinked', PERSONAL_DATA_ERASED],
  tables: ['collection_input_sources', 'collection_inputs'],
  async handle(events: readonly RecordedEvent[], trx: Knex.Transaction, context?: ProjectionContext) {
    for (const recorded of events) {
      if (recorded.type === PERSONAL_DATA_ERASED) {
        await trx('collection_inputs')
          .where({ subject_id: (recorded.data as unknown as PersonalDataErased).subjectId })
          .delete();
        continue;
      }
      if (recorded.type === 'IntakeLinked') {
        await link(trx, context, recorded);
        continue;
      }
      await apply(trx, recorded);
    }
  },
};

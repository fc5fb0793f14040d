import type { Knex } from 'knex';
import { suite } from 'uvu';
import { collectionStream } from '../../domain/collection/events.ts';
import { PERSONAL_DATA_ERASED, SUBJECTS_METADATA } from '../../platform/personal-data/index.ts';
import { collectionProjection } from '../../projections/collection/projection.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { projectionSpec, type SpecEvent } from '../support/projection.ts';
import { assess, cmd, CID, create, history, RECIPIENT, submit } from './fixtures.ts';

const test = suite('collection read model: a batch folded at once reads as its events applied one by one');
let one: TestDatabase;
let batched: TestDatabase;
test.before(async () => {
  [one, batched] = await Promise.all([createTestDatabase(), createTestDatabase()]);
});
test.after(async () => {
  await Promise.all([one?.drop(), batched?.drop()]);
});

const SUBJECT = 's'.repeat(64);
const at = (minute: number) => new Date(Date.UTC(2026, 10, 23, 12, minute)).toISOString();

/**
 * One collection's life: items submitted, rejected and sent again (an item back to a status it
 * had: its row's updated_at is when it returned), a link reissued, the subject's events marked
 * sealed, then erased, then more after the erasure.
 */
function life(): SpecEvent[] {
  const events = history(
    create(true),
    cmd({ type: 'RecordRecipientOpened', recipientId: 'p1' }, { actor: RECIPIENT('p1'), at: at(1) }),
    { ...submit('i1', 'p1', 'd1'), at: at(2) },
    { ...assess('i1', 'd1', 'INVALIDO', 1, 'production'), at: at(3) },
    { ...submit('i1', 'p1', 'd2'), at: at(4) },
    cmd({ type: 'ReissueLink', recipientId: 'p2', linkHash: 'hash-p2-2' }, { at: at(5) }),
    { ...submit('i2', 'p2', 'd3'), at: at(6) },
    { ...assess('i2', 'd3', 'VALIDO', 1, 'production'), at: at(7) },
  ).map((event) => ({
    ...event,
    streamName: collectionStream(CID),
    metadata: event.type === 'CollectionCreated' || event.type === 'ItemSubmitted' ? { [SUBJECTS_METADATA]: [SUBJECT] } : {},
  }));
  return [...events.slice(0, 6), { type: PERSONAL_DATA_ERASED, data: { subjectId: SUBJECT }, streamName: 'personal-data' }, ...events.slice(6)];
}

const rows = async (db: Knex) => ({
  collections: await db('collection_collections').select('*'),
  items: await db('collection_items').orderBy('item_id').select('*'),
  links: await db('collection_links').orderBy('recipient_id').select('*'),
});

test('the same rows, updated_at and subjects whether each event has its own transaction or the batch has one', async () => {
  const itemsAndLinks = async (db: Knex) => {
    const { items, links } = await rows(db);
    return {
      items: items.map((i: { item_id: string; status: string; updated_at: Date }) => [i.item_id, i.status, i.updated_at.toISOString()]),
      links: links.map((l: { link_version: number }) => l.link_version),
    };
  };
  await projectionSpec(collectionProjection, () => one.knex)
    .whenEach(...life())
    .thenRead(
      itemsAndLinks,
      {
        items: [
          ['i1', 'SUBMITTED', at(4)],
          ['i2', 'VALIDATED', at(7)],
        ],
        links: [1, 2],
      },
      'one by one: each item carries when it last changed',
    );
  await projectionSpec(collectionProjection, () => batched.knex)
    .when(...life())
    .thenRead(rows, await rows(one.knex));
});

test.run();

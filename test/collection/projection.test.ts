import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../domain/collection/events.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { PERSONAL_DATA_ERASED, SUBJECTS_METADATA } from '../../platform/personal-data/index.ts';
import { projectionContext } from '../../platform/projections/projection.ts';
import { collectionProjection } from '../../projections/collection/projection.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
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
function recorded(): RecordedEvent[] {
  const events = history(
    create(true),
    cmd({ type: 'RecordRecipientOpened', recipientId: 'p1' }, { actor: RECIPIENT('p1'), at: at(1) }),
    { ...submit('i1', 'p1', 'd1'), at: at(2) },
    { ...assess('i1', 'd1', 'INVALIDO', 1, 'production'), at: at(3) },
    { ...submit('i1', 'p1', 'd2'), at: at(4) },
    cmd({ type: 'ReissueLink', recipientId: 'p2', linkHash: 'hash-p2-2' }, { at: at(5) }),
    { ...submit('i2', 'p2', 'd3'), at: at(6) },
    { ...assess('i2', 'd3', 'VALIDO', 1, 'production'), at: at(7) },
  );
  const all = [...events.slice(0, 6), { type: PERSONAL_DATA_ERASED, data: { subjectId: SUBJECT } }, ...events.slice(6)];
  return all.map((event, i) => ({
    id: randomUUID(),
    streamName: event.type === PERSONAL_DATA_ERASED ? 'personal-data' : collectionStream(CID),
    type: event.type,
    data: event.data as unknown as Record<string, unknown>,
    metadata: event.type === 'CollectionCreated' || event.type === 'ItemSubmitted' ? { [SUBJECTS_METADATA]: [SUBJECT] } : {},
    revision: BigInt(i),
    position: { commit: BigInt(i + 1), prepare: BigInt(i + 1) },
    createdAt: new Date(),
  }));
}

const rows = async (database: TestDatabase) => ({
  collections: await database.knex('collection_collections').select('*'),
  items: await database.knex('collection_items').orderBy('item_id').select('*'),
  links: await database.knex('collection_links').orderBy('recipient_id').select('*'),
});

test('the same rows, updated_at and subjects whether each event has its own transaction or the batch has one', async () => {
  const log = recorded();
  const context = projectionContext({ readStream: async (streamName: string) => log.filter((e) => e.streamName === streamName) });
  for (const event of log) await one.knex.transaction((trx) => collectionProjection.handle([event], trx, context));
  await batched.knex.transaction((trx) => collectionProjection.handle(log, trx, context));

  const expected = await rows(one);
  assert.equal(
    expected.items.map((i: { item_id: string; status: string; updated_at: Date }) => [i.item_id, i.status, i.updated_at.toISOString()]),
    [
      ['i1', 'SUBMITTED', at(4)],
      ['i2', 'VALIDATED', at(7)],
    ],
    'one by one: each item carries when it last changed',
  );
  assert.equal(
    expected.links.map((l: { link_version: number }) => l.link_version),
    [1, 2],
  );
  assert.equal(await rows(batched), expected);
});

test.run();

import type { Knex } from 'knex';
import { comparePositions, type Position, type RecordedEvent } from '../../platform/eventstore/port.ts';
import type { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { readCheckpoints } from '../../platform/projections/checkpoints.ts';
import type { Projection } from '../../platform/projections/projection.ts';

export const COUNTER = 'test-counter';

/** One row per application of an event, with no unique key: an event applied twice shows as two rows. */
export async function createAppliedTable(db: Knex): Promise<void> {
  await db.schema.createTable('test_applied', (t) => {
    t.bigIncrements('id');
    t.text('tag').notNullable().index();
    t.text('stream').notNullable();
    t.text('by').notNullable();
  });
}

/**
 * A projection that records every event it applies. `before` runs ahead of each event inside the
 * batch's transaction: a test makes it throw (a failing event) or wait (a slow batch).
 */
export function counter(by = 'A', before?: (tag: string) => Promise<void> | void): Projection {
  return {
    name: COUNTER,
    eventTypes: ['Counted'],
    tables: ['test_applied'],
    async handle(events: readonly RecordedEvent[], trx: Knex.Transaction) {
      for (const event of events) {
        const tag = String(event.data.tag);
        await before?.(tag);
        await trx('test_applied').insert({ tag, stream: event.streamName, by });
      }
    },
  };
}

/**
 * The counter with Projection.writeFenced: a batch goes in one statement guarded by the runner's
 * fence, its rows marked `by` + '1'; handle() (the transaction path) marks them `by`. Where the
 * statement would need the checkpoint row first (a projection's very first batch), the fence
 * refuses and the transaction path writes the batch.
 */
export function fencedCounter(by = 'A'): Projection {
  return {
    ...counter(by),
    async writeFenced(events, db, fence) {
      const save = fence.save(fence.guard);
      const { rows } = await db.raw(
        `with ${fence.check.sql}, ${save.sql},
              applied as (insert into test_applied (tag, stream, by)
                          select tag, stream, ? from unnest(?::text[], ?::text[]) as e(tag, stream) where ${fence.guard})
         select ${fence.guard} as ok`,
        [...fence.check.bindings, ...save.bindings, `${by}1`, events.map((e) => String(e.data.tag)), events.map((e) => e.streamName)],
      );
      return rows[0].ok as boolean;
    },
  };
}

/** Append n events `Counted-<i>` (or of another type) over five streams; their positions in order. */
export async function appendCounted(store: PostgresEventStore, n: number, type = 'Counted', from = 0): Promise<Position[]> {
  const positions: Position[] = [];
  for (let i = from; i < from + n; i++) {
    positions.push((await store.appendToStream(`counter-${i % 5}`, [{ type, data: { tag: `${type}-${i}` } }])).position);
  }
  return positions;
}

/** How many times each tag was applied. */
export async function appliedCounts(db: Knex): Promise<Map<string, number>> {
  const rows: { tag: string; n: number }[] = await db('test_applied').groupBy('tag').select('tag').count({ n: '*' });
  return new Map(rows.map((r) => [r.tag, Number(r.n)]));
}

export async function checkpointOf(db: Knex, name = COUNTER): Promise<Position | undefined> {
  return (await readCheckpoints(db, [name])).get(name)?.position;
}

export async function reached(db: Knex, position: Position, name = COUNTER): Promise<boolean> {
  const at = await checkpointOf(db, name);
  return !!at && comparePositions(at, position) >= 0;
}

/** Every tag of `Counted-<from>` .. `Counted-<to - 1>` applied exactly once, and nothing else. */
export async function exactlyOnce(db: Knex, to: number): Promise<string[]> {
  const counts = await appliedCounts(db);
  const wrong: string[] = [];
  for (let i = 0; i < to; i++) if (counts.get(`Counted-${i}`) !== 1) wrong.push(`Counted-${i} x${counts.get(`Counted-${i}`) ?? 0}`);
  if (counts.size !== to) wrong.push(`${counts.size} tags for ${to} events`);
  return wrong;
}

import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '../../domain/shared/decider.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { projectionContext, type Projection } from '../../platform/projections/projection.ts';

/** An event as a test writes it; the rest of what the store records is filled in. */
export type SpecEvent = (DomainEvent | { type: string; data: Record<string, unknown> }) & Partial<Pick<RecordedEvent, 'streamName' | 'metadata' | 'createdAt'>>;

/**
 * The one shape of a projection test, like the deciders' given/when/then and Emmett's
 * PostgreSQLProjectionSpec: given the events already projected, when new ones arrive, then what a
 * query (or a table) reads back. The events are recorded as the store would record them (in
 * global order, revisions per stream) and applied by `handle` in one transaction per step, with
 * the context a live run gives (`streamUpTo` reads the events this spec recorded). The database
 * is the caller's: a spec adds to what earlier tests of its suite projected.
 */
export function projectionSpec(projection: Projection, db: () => Knex) {
  const log: RecordedEvent[] = [];
  const context = projectionContext({ readStream: async (streamName: string) => log.filter((e) => e.streamName === streamName) });

  const record = (event: SpecEvent): RecordedEvent => {
    const streamName = event.streamName ?? 'spec-stream';
    const recorded: RecordedEvent = {
      id: randomUUID(),
      streamName,
      type: event.type,
      data: event.data as Record<string, unknown>,
      metadata: event.metadata ?? {},
      revision: BigInt(log.filter((e) => e.streamName === streamName).length),
      position: { commit: BigInt(log.length + 1), prepare: BigInt(log.length + 1) },
      createdAt: event.createdAt ?? new Date(),
    };
    log.push(recorded);
    return recorded;
  };
  const project = async (events: readonly SpecEvent[]) => {
    if (events.length === 0) return;
    const recorded = events.map(record);
    await db().transaction((trx) => projection.handle(recorded, trx, context));
  };

  /** Each step is one transaction, in order. */
  const when = (steps: ReadonlyArray<readonly SpecEvent[]>) => {
    let applied: Promise<void> | undefined;
    const applyOnce = () => (applied ??= steps.reduce<Promise<void>>((done, step) => done.then(() => project(step)), Promise.resolve()));
    return {
      /** What `read` gives once the events are projected equals `expected`. */
      async thenRead<T>(read: (db: Knex) => Promise<T>, expected: T, message?: string): Promise<void> {
        await applyOnce();
        assert.equal(await read(db()), expected, message);
      },
      /** The rows of `table` matching `where` (all their columns, or only `columns`), in `orderBy`'s order. */
      async thenRows(table: string, where: Record<string, unknown>, expected: Array<Record<string, unknown>>, options: { columns?: string[]; orderBy?: string; message?: string } = {}): Promise<void> {
        await applyOnce();
        let query = db()(table)
          .where(where)
          .select(options.columns ?? '*');
        if (options.orderBy) query = query.orderBy(options.orderBy);
        assert.equal(await query, expected, options.message);
      },
    };
  };

  return {
    given: (...given: SpecEvent[]) => ({ when: (...events: SpecEvent[]) => when([given, events]) }),
    /** No events before: only these. */
    when: (...events: SpecEvent[]) => when([events]),
    /** Each event in a transaction of its own, as a runner reading one event a batch applies them. */
    whenEach: (...events: SpecEvent[]) => when(events.map((event) => [event])),
  };
}

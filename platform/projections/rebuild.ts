import type { Knex } from 'knex';
import { comparePositions, START, type EventStore, type Position } from '../eventstore/port.ts';
import { lockCheckpoint, readCheckpoints, resetCheckpoint } from './checkpoints.ts';
import type { Projection } from './projection.ts';
import { applyBatch } from './runner.ts';
import { AdvisoryLocks, LockNamespace } from '../database/advisory-lock.ts';

export interface RebuildProgress {
  projection: string;
  events: number;
  /** Where the replay is, and the store's head when it began (for a progress bar). */
  at: Position;
  head: Position;
  /** 'here' when this process replays; 'runner' when a running projector does it. */
  by: 'here' | 'runner';
}

/**
 * Empty a projection's tables and replay every event from the start. If no projector holds the
 * projection, the replay runs here; otherwise the live runner sees its checkpoint reset and
 * replays by itself, and this waits for it to reach the head, so a rebuild never needs downtime.
 */
export async function rebuildProjection(
  db: Knex,
  store: EventStore,
  projection: Projection,
  options: { batchSize?: number; onProgress?: (p: RebuildProgress) => void } = {},
): Promise<{ events: number }> {
  const batchSize = options.batchSize ?? 1000;
  const head = await store.headPosition();
  const locks = new AdvisoryLocks(db);
  try {
    const here = await locks.tryLock(LockNamespace.projection, projection.name);
    await db.transaction(async (trx) => {
      // Same lock order as a live batch (checkpoint row, then tables), so the two cannot deadlock.
      await lockCheckpoint(trx, projection.name);
      if (projection.tables.length) await trx.raw(`truncate ${projection.tables.map((t) => `"${t}"`).join(', ')} restart identity cascade`);
      await resetCheckpoint(trx, projection.name);
    });
    let events = 0;
    if (here) {
      let at = START;
      for (;;) {
        const batch = await store.readAll({ after: at, filter: { eventTypes: projection.eventTypes }, maxCount: batchSize });
        await applyBatch(db, projection, at, batch.events, batch.checkpoint);
        events += batch.events.length;
        at = batch.checkpoint;
        options.onProgress?.({ projection: projection.name, events, at, head, by: 'here' });
        if (batch.events.length < batchSize && comparePositions(at, head) >= 0) break;
      }
    } else {
      for (;;) {
        const at = (await readCheckpoints(db, [projection.name])).get(projection.name)?.position ?? START;
        options.onProgress?.({ projection: projection.name, events: 0, at, head, by: 'runner' });
        if (comparePositions(at, head) >= 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    return { events };
  } finally {
    await locks.close();
  }
}

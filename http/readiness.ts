import type { AppContext } from '../application/context.ts';
import { sessionTimeouts } from '../platform/database/knex.ts';
import { START, comparePositions, positionToString } from '../platform/eventstore/port.ts';
import { readCheckpoints } from '../platform/projections/checkpoints.ts';
import { parkedCounts } from '../platform/projections/parking.ts';

async function check(what: () => Promise<unknown>): Promise<string> {
  try {
    await what();
    return 'ok';
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/**
 * Database and event store reachable, the limits database sessions run with, and for each
 * projection how far behind the store's head it is and how many events it parked. Not ready when
 * a projection is stalled: behind the head without storing progress for PROJECTION_STALL_SECONDS
 * (a caught-up runner stores its position at least once a second, a busy one at every batch).
 */
export async function readiness(app: AppContext, projectionNames: readonly string[]) {
  const database = await check(() => app.db.raw('select 1'));
  const eventStore = await check(() => app.store.ping());
  const projections: Record<string, unknown> = {};
  let sessions: Awaited<ReturnType<typeof sessionTimeouts>> | undefined;
  let stalled = false;
  if (database === 'ok' && eventStore === 'ok') {
    sessions = await sessionTimeouts(app.db);
    const head = await app.store.headPosition();
    const checkpoints = await readCheckpoints(app.db, projectionNames);
    const parked = await parkedCounts(app.db);
    for (const name of projectionNames) {
      const at = checkpoints.get(name);
      // A projection has no checkpoint until it has passed an event: on an empty store it is caught up.
      const caughtUp = comparePositions(at?.position ?? START, head) >= 0;
      // Seconds since the projection last stored progress while events wait for it.
      const lagSeconds = caughtUp ? 0 : at ? Math.round((Date.now() - at.updatedAt.getTime()) / 100) / 10 : null;
      // Without a checkpoint there is no baseline yet: its first batch or flush creates one.
      const isStalled = lagSeconds !== null && lagSeconds > app.config.PROJECTION_STALL_SECONDS;
      stalled ||= isStalled;
      projections[name] = { checkpoint: at ? positionToString(at.position) : null, caughtUp, lagSeconds, parked: parked.get(name) ?? 0, stalled: isStalled };
    }
  }
  return { ready: database === 'ok' && eventStore === 'ok' && !stalled, database, eventStore, sessions, projections };
}

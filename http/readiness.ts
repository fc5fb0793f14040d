import type { AppContext } from '../application/context.ts';
import { START, comparePositions, positionToString } from '../platform/eventstore/port.ts';
import { readCheckpoints } from '../platform/projections/checkpoints.ts';

async function check(what: () => Promise<unknown>): Promise<string> {
  try {
    await what();
    return 'ok';
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

/** Database and event store reachable, and how far each projection is behind the store's head. */
export async function readiness(app: AppContext, projectionNames: readonly string[]) {
  const database = await check(() => app.db.raw('select 1'));
  const eventStore = await check(() => app.store.ping());
  const projections: Record<string, unknown> = {};
  if (database === 'ok' && eventStore === 'ok') {
    const head = await app.store.headPosition();
    const checkpoints = await readCheckpoints(app.db, projectionNames);
    for (const name of projectionNames) {
      const at = checkpoints.get(name);
      // A projection has no checkpoint until it has passed an event: on an empty store it is caught up.
      const caughtUp = comparePositions(at?.position ?? START, head) >= 0;
      projections[name] = {
        checkpoint: at ? positionToString(at.position) : null,
        caughtUp,
        // Seconds since the projection last stored progress while events wait for it.
        lagSeconds: caughtUp ? 0 : at ? Math.round((Date.now() - at.updatedAt.getTime()) / 100) / 10 : null,
      };
    }
  }
  return { ready: database === 'ok' && eventStore === 'ok', database, eventStore, projections };
}

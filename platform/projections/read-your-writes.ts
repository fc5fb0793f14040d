import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { comparePositions, type Position } from '../eventstore/port.ts';
import { readCheckpoints } from './checkpoints.ts';
import type { ProjectionRunner } from './runner.ts';

/** How long a projection held here is followed by its in-memory progress alone. */
const LOCAL_ONLY_MS = 500;

/**
 * Wait until the named projections have passed `position`. Projections run by this process
 * report progress in memory; those run elsewhere are polled in the checkpoint table. On timeout
 * the caller gets its answer anyway (its write did happen), and the slow projection is logged.
 */
export function createReadYourWrites(db: Knex, log: Logger, timeoutMs: number, runner?: ProjectionRunner) {
  return async (names: readonly string[], position: Position | null): Promise<void> => {
    if (!position || names.length === 0) return;
    const started = Date.now();
    const deadline = started + timeoutMs;
    let pending = [...names];
    while (pending.length) {
      const local = pending.filter((name) => {
        const at = runner?.localPosition(name);
        return !at || comparePositions(at, position) < 0;
      });
      if (local.length === 0) return;
      // A projection this process holds is ahead of its stored checkpoint: waiting on its
      // progress costs no query (under load the polls were a tenth of every statement sent). Past
      // a short while the table is asked anyway, in case the lease went elsewhere meanwhile.
      const trustLocal = Date.now() - started < LOCAL_ONLY_MS;
      const remote = local.filter((name) => !(trustLocal && runner?.holds(name)));
      const stored = remote.length ? await readCheckpoints(db, remote) : new Map();
      pending = local.filter((name) => {
        if (!remote.includes(name)) return true;
        const at = stored.get(name);
        return !at || comparePositions(at.position, position) < 0;
      });
      if (!pending.length) return;
      const left = deadline - Date.now();
      if (left <= 0) {
        log.warn({ projections: pending }, 'read-your-writes timed out');
        return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(left, 25));
        const unsubscribe = runner?.onProgress(done);
        function done() {
          clearTimeout(timer);
          unsubscribe?.();
          resolve();
        }
      });
    }
  };
}

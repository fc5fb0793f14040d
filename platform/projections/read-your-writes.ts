import type Logger from 'bunyan';
import type { Knex } from 'knex';
import { comparePositions, type Position } from '../eventstore/port.ts';
import { readCheckpoints } from './checkpoints.ts';
import type { ProjectionRunner } from './runner.ts';

/**
 * Wait until the named projections have passed `position`. Projections run by this process
 * report progress in memory; those run elsewhere are polled in the checkpoint table. On timeout
 * the caller gets its answer anyway (its write did happen), and the slow projection is logged.
 */
export function createReadYourWrites(db: Knex, log: Logger, timeoutMs: number, runner?: ProjectionRunner) {
  return async (names: readonly string[], position: Position | null): Promise<void> => {
    if (!position || names.length === 0) return;
    const deadline = Date.now() + timeoutMs;
    let pending = [...names];
    while (pending.length) {
      const local = pending.filter((name) => {
        const at = runner?.localPosition(name);
        return !at || comparePositions(at, position) < 0;
      });
      if (local.length === 0) return;
      const stored = await readCheckpoints(db, local);
      pending = local.filter((name) => {
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

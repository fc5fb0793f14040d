import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import type { AppContext } from '../application/context.ts';
import { sessionTimeouts } from '../platform/database/knex.ts';
import { START, positionToString } from '../platform/eventstore/port.ts';
import { readCheckpoints } from '../platform/projections/checkpoints.ts';
import { parkedCounts } from '../platform/projections/parking.ts';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The request carries `Authorization: Bearer <OPS_TOKEN>` (never true while OPS_TOKEN is unset). */
export function isOperator(app: Pick<AppContext, 'config'>, ctx: Context): boolean {
  const expected = app.config.OPS_TOKEN;
  const given = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1];
  // Digests: equal lengths for timingSafeEqual, and no timing told about the token's length.
  return expected !== undefined && given !== undefined && timingSafeEqual(digest(given), digest(expected));
}

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
 * projection how far behind it is (the age of the oldest event it has not passed: a healthy one
 * stays within a second or so, since even a projection with nothing to apply stores its position
 * once a second) and how many events it parked. Not ready when a projection is stalled: an event
 * has waited for it longer than PROJECTION_STALL_SECONDS.
 */
export async function readiness(app: AppContext, projectionNames: readonly string[]) {
  const database = await check(() => app.db.raw('select 1'));
  const eventStore = await check(() => app.store.ping());
  const projections: Record<string, unknown> = {};
  let sessions: Awaited<ReturnType<typeof sessionTimeouts>> | undefined;
  let stalled = false;
  if (database === 'ok' && eventStore === 'ok') {
    sessions = await sessionTimeouts(app.db);
    const checkpoints = await readCheckpoints(app.db, projectionNames);
    const parked = await parkedCounts(app.db);
    for (const name of projectionNames) {
      const at = checkpoints.get(name);
      const [waiting] = (await app.store.readAll({ after: at?.position ?? START, maxCount: 1 })).events;
      const lagSeconds = waiting ? Math.max(0, Math.round((Date.now() - waiting.createdAt.getTime()) / 100) / 10) : 0;
      const isStalled = lagSeconds > app.config.PROJECTION_STALL_SECONDS;
      stalled ||= isStalled;
      projections[name] = { checkpoint: at ? positionToString(at.position) : null, caughtUp: !waiting, lagSeconds, parked: parked.get(name) ?? 0, stalled: isStalled };
    }
  }
  return { ready: database === 'ok' && eventStore === 'ok' && !stalled, database, eventStore, sessions, projections };
}

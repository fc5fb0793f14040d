import { comparePositions, type Position } from '../platform/eventstore/port.ts';
import type { AppContext } from './context.ts';

/**
 * Read-your-writes, one rule for every module (docs/CONVENTIONS.md, "Routes"): a command's reply
 * is built from the command's own result, without waiting for any projection; the caller's next
 * read waits (bounded by READ_YOUR_WRITES_TIMEOUT_MS) until the projections it reads have passed
 * that caller's last write. So a reply never waits for, nor lags behind, a read model, and a
 * caller that writes then reads still sees its write.
 *
 * The last write of each caller is kept in this process, per running app (keyed by its database
 * handle, one per app: tests run several in one process). A caller whose next request reaches
 * another process reads as of that process's projections (docs/proposals.md).
 */
export interface Caller {
  organizationId: string;
  userId: string;
}

const lastWrites = new WeakMap<object, Map<string, Position>>();

const keyOf = (caller: Caller) => `${caller.organizationId}:${caller.userId}`;

/** Records a write of the caller (nothing when the command appended nothing). */
export function rememberWrite(app: Pick<AppContext, 'db'>, caller: Caller, position: Position | null): void {
  if (!position) return;
  let writes = lastWrites.get(app.db);
  if (!writes) lastWrites.set(app.db, (writes = new Map()));
  const previous = writes.get(keyOf(caller));
  // Concurrent writes of one caller may answer out of order: keep the later position.
  if (!previous || comparePositions(previous, position) < 0) writes.set(keyOf(caller), position);
}

/** The position of the caller's last write in this process, or null. */
export function lastWrite(app: Pick<AppContext, 'db'>, caller: Caller): Position | null {
  return lastWrites.get(app.db)?.get(keyOf(caller)) ?? null;
}

/**
 * The reply to a command: `present` builds it from the command's result (the state its events led
 * to, and whatever else the command hands back), and the write is remembered for the caller's
 * next read. Nothing here waits.
 */
export function replyAfterWrite<Result extends { position: Position | null }, Reply>(app: Pick<AppContext, 'db'>, caller: Caller, written: Result, present: (written: Result) => Reply): Reply {
  rememberWrite(app, caller, written.position);
  return present(written);
}

/** Before a read: waits until the projections it reads have passed the caller's last write. */
export async function readOwnWrites(app: Pick<AppContext, 'db' | 'readYourWrites'>, caller: Caller, reads: readonly string[] | undefined): Promise<void> {
  if (reads?.length) await app.readYourWrites(reads, lastWrite(app, caller));
}

import type { Position } from '../../platform/eventstore/port.ts';

/**
 * The position of each caller's last proposal creation, per running app (keyed by its database
 * handle, one per app: tests run several in one process), kept in this process. The creation reply is built from the events it appended,
 * without waiting for the list projection; the caller's next list read waits for that position
 * instead, so it still sees its own write (a caller whose requests reach another process reads
 * the list as of that process's projection: see docs/proposals.md).
 */
const lastWrites = new WeakMap<object, Map<string, Position>>();

const keyOf = (caller: { organizationId: string; userId: string }) => `${caller.organizationId}:${caller.userId}`;

export function rememberWrite(app: object, caller: { organizationId: string; userId: string }, position: Position | null): void {
  if (!position) return;
  let writes = lastWrites.get(app);
  if (!writes) lastWrites.set(app, (writes = new Map()));
  const previous = writes.get(keyOf(caller));
  // Concurrent writes of one caller may answer out of order: keep the later position.
  if (!previous || previous.commit < position.commit || (previous.commit === position.commit && previous.prepare < position.prepare)) writes.set(keyOf(caller), position);
}

export function lastWrite(app: object, caller: { organizationId: string; userId: string }): Position | null {
  return lastWrites.get(app)?.get(keyOf(caller)) ?? null;
}

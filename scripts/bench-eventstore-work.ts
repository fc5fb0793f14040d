/**
 * What bench:eventstore's contenders share, in this process and in Emmett's own
 * (bench-eventstore-emmett.ts): the events they write and the loops that time them.
 */
import { randomUUID } from 'node:crypto';

export const PAGE = 1000;

export const payload = () => ({
  applicationId: randomUUID(),
  amount: Math.round(Math.random() * 1_000_000) / 100,
  currency: 'EUR',
  note: 'benchmark event with a payload of a realistic size for a credit analysis command',
});
export const metadata = { userId: 'bench', correlationId: randomUUID() };
export const batchOf = (n: number) => Array.from({ length: n }, () => ({ type: 'AmountRecorded', data: payload(), metadata }));

/** `writers` loops of `op` for `ms`: operations per second. */
export async function appendSlice(writers: number, ms: number, op: (writer: number) => Promise<void>): Promise<number> {
  let count = 0;
  const started = performance.now();
  const deadline = started + ms;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      while (performance.now() < deadline) {
        await op(w);
        count++;
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/** One full read: events per second. */
export async function readSlice(readAll: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const events = await readAll();
  return events / ((performance.now() - started) / 1000);
}

/**
 * Tops a log up to `want` events (not timed), `writers` at a time in appends of 500 events;
 * `have` is what it holds.
 */
export async function topUp(writers: number, have: number, want: number, append: (writer: number, events: number) => Promise<unknown>): Promise<void> {
  const missing = Math.max(0, want - have);
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      // Exactly `missing` in all: the logs compared must hold the same number of events.
      for (let left = Math.floor(missing / writers) + (w < missing % writers ? 1 : 0); left > 0; left -= 500) await append(w, Math.min(500, left));
    }),
  );
}

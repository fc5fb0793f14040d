/**
 * Emmett's PostgreSQL event store for bench:eventstore, in a process of its own: Emmett sets
 * node-postgres's type parsers for the whole process (setNodePostgresTypeParser), which in the
 * bench's process changed how ours and the bare loops parse JSON and bigints. Answers the bench's
 * requests over the IPC channel one at a time: `{op}` in, `{ok, result}` or `{ok: false, error}` out.
 * BENCH_EMMETT_URL names its database.
 */
import { dumbo, rawSql } from '@event-driven-io/dumbo';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import { PAGE, appendSlice, batchOf, metadata, payload, readSlice, topUp } from './bench-eventstore-work.ts';

export type EmmettRequest =
  | { op: 'warm-up'; writers: number }
  | { op: 'append'; writers: number; ms: number }
  | { op: 'top-up'; writers: number; want: number }
  | { op: 'count' }
  | { op: 'vacuum' }
  | { op: 'read' }
  | { op: 'read-count' }
  | { op: 'close' };

const url = process.env.BENCH_EMMETT_URL!;
const store = getPostgreSQLEventStore(url);
const pool = dumbo({ connectionString: url });
const expected = new Map<number, bigint>();

const count = async () => Number((await pool.execute.query<{ n: number }>(rawSql('select count(*)::int as n from emt_messages'))).rows[0]!.n);

async function readAll(): Promise<number> {
  let after = 0n;
  let total = 0;
  for (;;) {
    const batch = await readMessagesBatch(pool.execute, { after, batchSize: PAGE });
    total += batch.messages.length;
    if (!batch.areMessagesLeft || batch.messages.length === 0) return total;
    after = batch.currentGlobalPosition;
  }
}

async function handle(request: EmmettRequest): Promise<unknown> {
  switch (request.op) {
    case 'warm-up':
      await Promise.all(
        Array.from({ length: request.writers }, async (_, w) => {
          for (let i = 0; i < 20; i++) await store.appendToStream(`warmup-${w}`, [{ type: 'Warmup', data: {} }]);
        }),
      );
      return null;
    case 'append':
      return appendSlice(request.writers, request.ms, async (w) => {
        const result = await store.appendToStream(`account-${w}`, [{ type: 'AmountRecorded', data: payload(), metadata }], {
          expectedStreamVersion: expected.get(w) ?? 'STREAM_DOES_NOT_EXIST',
        });
        expected.set(w, result.nextExpectedStreamVersion);
      });
    case 'top-up':
      await topUp(request.writers, await count(), request.want, (w, n) => store.appendToStream(`seed-${w}`, batchOf(n)));
      return count();
    case 'count':
      return count();
    case 'vacuum':
      await pool.execute.command(rawSql('vacuum analyze'));
      return null;
    case 'read':
      return readSlice(readAll);
    case 'read-count':
      return readAll();
    case 'close':
      await store.close();
      await pool.close();
      return null;
  }
}

// The bench gone (killed, crashed): nothing is left to answer, and the pool must not keep this process up.
process.on('disconnect', () => process.exit(0));
process.on('message', (request: EmmettRequest) => {
  handle(request).then(
    // After 'close' the process ends once its answer is sent.
    (result) => process.send!({ ok: true, result }, () => request.op === 'close' && process.exit(0)),
    (error: unknown) => process.send!({ ok: false, error: String((error as Error)?.stack ?? error) }),
  );
});

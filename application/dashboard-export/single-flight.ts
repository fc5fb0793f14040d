import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { DashboardMessages } from '../../domain/dashboard/messages.ts';
import { DomainError } from '../../domain/shared/errors.ts';

/** Longer than the export's statement timeout and the encoding of its file, so a live run never loses it. */
export const EXPORT_LEASE_MS = 60_000;
const WAIT_POLL_MS = 50;

type Claim = { kind: 'owner'; runId: string } | { kind: 'same' } | { kind: 'busy' };

/**
 * Take the organization's export row, or learn who holds it. The lease is the database's clock,
 * so processes with skewed clocks agree on when it ends.
 */
async function claim(db: Knex, organizationId: string, key: string): Promise<Claim> {
  for (;;) {
    const runId = randomUUID();
    const { rows } = await db.raw(
      `insert into dashboard_export_runs (organization_id, run_id, filters_key, lease_until)
       values (?, ?, ?, now() + make_interval(secs => ?))
       on conflict (organization_id) do update set run_id = excluded.run_id, filters_key = excluded.filters_key, lease_until = excluded.lease_until
       where dashboard_export_runs.lease_until < now()
       returning run_id`,
      [organizationId, runId, key, EXPORT_LEASE_MS / 1000],
    );
    if (rows.length) return { kind: 'owner', runId };
    const held = await db('dashboard_export_runs').where({ organization_id: organizationId }).first('filters_key');
    // Released between the two statements: try again.
    if (held) return held.filters_key === key ? { kind: 'same' } : { kind: 'busy' };
  }
}

const release = (db: Knex, organizationId: string, runId: string) => db('dashboard_export_runs').where({ organization_id: organizationId, run_id: runId }).delete();

type Flight = { key: string; result: Promise<unknown> };
/** The exports this process runs, per database (tests run several services in one process). */
const flights = new WeakMap<Knex, Map<string, Flight>>();

/**
 * One export per organization at a time (spec Limits), across processes. In this process an
 * identical export (same filters key) joins the one in progress and gets its result; another
 * with other filters is refused with 429. A process that finds an identical export running in
 * another process waits for it to end and then runs its own: the rows are not handed between
 * processes, since that would mean storing names and documents outside the erasure's reach.
 */
export function exportOnce<T>(db: Knex, organizationId: string, key: string, run: () => Promise<T>): Promise<T> {
  const running = flights.get(db) ?? new Map<string, Flight>();
  flights.set(db, running);
  const current = running.get(organizationId);
  if (current) {
    if (current.key !== key) return Promise.reject(new DomainError('too_many', DashboardMessages.exportBusy));
    return current.result as Promise<T>;
  }
  const result = (async () => {
    for (;;) {
      const claimed = await claim(db, organizationId, key);
      if (claimed.kind === 'busy') throw new DomainError('too_many', DashboardMessages.exportBusy);
      if (claimed.kind === 'owner') {
        try {
          return await run();
        } finally {
          await release(db, organizationId, claimed.runId);
        }
      }
      await sleep(WAIT_POLL_MS);
    }
  })();
  const flight = { key, result };
  running.set(organizationId, flight);
  const forget = () => {
    if (running.get(organizationId) === flight) running.delete(organizationId);
  };
  result.then(forget, forget);
  return result;
}

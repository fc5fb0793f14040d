import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Knex } from 'knex';
import type { Position } from '../eventstore/port.ts';
import type { Fence } from './projection.ts';

/**
 * Leases with a fencing token: how a singleton (a projection's runner) runs in one process at a
 * time across the deployment. Unlike a session advisory lock, a lease does not depend on one
 * connection staying up, and losing it cannot go unnoticed: every write the holder makes checks
 * its token in the same transaction (saveCheckpointHoldingLease), and a takeover changes the token.
 */
export interface Lease {
  name: string;
  owner: string;
  token: number;
}

export class LeaseLost extends Error {
  constructor(readonly lease: Lease) {
    super(`lease ${lease.name} (token ${lease.token}) was taken by another holder`);
    this.name = 'LeaseLost';
  }
}

/** Host and pid tell an operator who holds what; the suffix keeps two runners of one process apart. */
export function newLeaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** Whether an owner names a process of this host that no longer exists (kill -9, a crash). */
function holderIsGone(owner: string): boolean {
  const parts = owner.split(':');
  const pid = Number(parts.at(-2));
  if (parts.slice(0, -2).join(':') !== hostname() || !Number.isSafeInteger(pid) || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it exists under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Take the lease if nobody holds it, its holder let it expire, or its holder was a process of
 * this host that is gone: a service restarted after kill -9 need not wait out its own old lease.
 */
export async function tryAcquireLease(db: Knex, name: string, owner: string, ttlMs: number): Promise<Lease | null> {
  const taken = await acquireFree(db, name, owner, ttlMs);
  if (taken) return taken;
  const holder = await db('projection_leases').where({ name }).first('owner', 'token');
  if (!holder || !holderIsGone(holder.owner)) return null;
  const { rows } = await db.raw(
    `update projection_leases set owner = ?, token = token + 1, expires_at = now() + ? * interval '1 millisecond'
     where name = ? and token = ? returning token`,
    [owner, ttlMs, name, holder.token],
  );
  return rows[0] ? { name, owner, token: Number(rows[0].token) } : null;
}

async function acquireFree(db: Knex, name: string, owner: string, ttlMs: number): Promise<Lease | null> {
  const { rows } = await db.raw(
    `insert into projection_leases (name, owner, token, expires_at)
     values (?, ?, 1, now() + ? * interval '1 millisecond')
     on conflict (name) do update
       set owner = excluded.owner, token = projection_leases.token + 1, expires_at = excluded.expires_at
       where projection_leases.expires_at < now()
     returning token`,
    [name, owner, ttlMs],
  );
  return rows[0] ? { name, owner, token: Number(rows[0].token) } : null;
}

/**
 * Extend the lease. False when another holder took it. A lease that expired but was not taken
 * is still ours: nobody else can have written under it, since a takeover changes the token.
 */
export async function renewLease(db: Knex, lease: Lease, ttlMs: number): Promise<boolean> {
  const { rowCount } = await db.raw(`update projection_leases set expires_at = now() + ? * interval '1 millisecond' where name = ? and token = ?`, [ttlMs, lease.name, lease.token]);
  return rowCount === 1;
}

/** Let another process take over at once instead of after the lease runs out. */
export async function releaseLease(db: Knex, lease: Lease): Promise<void> {
  await db.raw(`update projection_leases set expires_at = '-infinity' where name = ? and token = ?`, [lease.name, lease.token]);
}

/** Whether the lease (name, token: two bindings) is still held, share-locking its row: a takeover waits for the commit. */
const LEASE_HELD = 'exists (select 1 from projection_leases l where l.name = ? and l.token = ? for share)';

/**
 * The checkpoint moves to `position` only while `lease` is still the holder's, in one statement:
 * the lease row is share-locked by the same statement (a takeover waits for this commit), and an
 * update that finds the lease gone changes nothing and is refused.
 */
export async function saveCheckpointHoldingLease(trx: Knex.Transaction, name: string, position: Position, lease: Lease): Promise<void> {
  const { rowCount } = await trx.raw(
    `update projection_checkpoints set commit_position = ?, prepare_position = ?, updated_at = now()
     where name = ? and ${LEASE_HELD}`,
    [position.commit.toString(), position.prepare.toString(), name, lease.name, lease.token],
  );
  if (rowCount !== 1) throw new LeaseLost(lease);
}

/**
 * The same fence as a checkpoint compare-and-set, for a batch written in one statement
 * (Projection.writeFenced): `fence` locks the checkpoint row and holds if it is still at
 * `expected` and the lease still this token's (share-locked, as above); the checkpoint moves to
 * `position` only if the statement's whole condition holds. Under READ COMMITTED a row changed
 * since the statement's snapshot is locked in its newest version and compared as such, so a
 * moved checkpoint is seen.
 */
export function checkpointFence(name: string, expected: Position, position: Position, lease: Lease): Fence {
  return {
    check: {
      sql: `fence as (
         select (c.commit_position, c.prepare_position) = (?::numeric, ?::numeric)
                and ${LEASE_HELD} as ok
           from projection_checkpoints c where c.name = ? for update)`,
      bindings: [expected.commit.toString(), expected.prepare.toString(), lease.name, String(lease.token), name],
    },
    guard: 'coalesce((select ok from fence), false)',
    save: (condition) => ({
      sql: `saved as (
         update projection_checkpoints set commit_position = ?, prepare_position = ?, updated_at = now()
          where name = ? and ${condition})`,
      bindings: [position.commit.toString(), position.prepare.toString(), name],
    }),
  };
}

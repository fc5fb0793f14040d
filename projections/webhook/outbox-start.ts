import type { Knex } from 'knex';
import type { Position } from '../../platform/eventstore/port.ts';
import type { SubscriptionTarget } from '../../domain/webhook/routing.ts';
import { rowToState, type SubscriptionRow } from './subscription-rows.ts';

export type Targets = Array<{ row: SubscriptionRow; target: SubscriptionTarget }>;

/**
 * What an outbox batch starts from: the high-water mark, the active subscriptions of the
 * organizations its events belong to, and what they can be checked against later: the count of
 * changes to the outbox's copy of the subscriptions (targets_version), the database, and which
 * table that copy is (a rebuild fills another one, beside the live one, then swaps them). A batch
 * with no subscription event leaves the copy as it found it, so the next batch may reuse this
 * without reading it again, provided its first insert finds the count, the database and the
 * table unchanged and the mark no lower (freshCheck).
 */
export interface BatchStart {
  database: string;
  /** The oid of the table `webhook_outbox_targets` names for this transaction. */
  table: string;
  version: string;
  highWater: Position;
  targetsOf: Map<string, Targets>;
}

/**
 * All of a BatchStart in one round trip. The mark is read, not locked: only outboxes (the live
 * one, a rebuild's) raise it, only upwards (raiseHighWater), and one that read it a little low
 * treats as new a few events another already turned into deliveries, whose rows exist under the
 * same ids (deliveryIdOf) and are not inserted again.
 */
export async function batchStart(trx: Knex.Transaction, organizationIds: readonly string[]): Promise<BatchStart> {
  const result = await trx.raw(
    `select jsonb_build_object('database', current_database(), 'table', 'webhook_outbox_targets'::regclass::oid::text,
                               'version', s.targets_version::text,
                               'commit', s.commit_position::text, 'prepare', s.prepare_position::text) as state, t.*
       from webhook_outbox_state s
       left join webhook_outbox_targets t on t.organization_id = any(?::text[]) and t.status = 'active'
      where s.id = 1`,
    [[...organizationIds]],
  );
  const rows = result.rows as Array<SubscriptionRow & { state: { database: string; table: string; version: string; commit: string; prepare: string } }>;
  const targetsOf = new Map<string, Targets>(organizationIds.map((id) => [id, []]));
  for (const { state: _, ...row } of rows) {
    if (row.id !== null) targetsOf.get(row.organization_id)!.push({ row, target: rowToState(row) });
  }
  const { database, table, version, commit, prepare } = rows[0]!.state;
  return { database, table, version, highWater: { commit: BigInt(commit), prepare: BigInt(prepare) }, targetsOf };
}

export async function activeTargets(trx: Knex.Transaction, organizationId: string): Promise<Targets> {
  const active: SubscriptionRow[] = await trx('webhook_outbox_targets').where({ organization_id: organizationId, status: 'active' });
  return active.map((row) => ({ row, target: rowToState(row) }));
}

/** Raises the high-water mark to `position`, never lowers it; as a CTE of the insert, or alone. */
export function raiseHighWater(position: Position): { sql: string; bindings: string[] } {
  const [commit, prepare] = [position.commit.toString(), position.prepare.toString()];
  return {
    sql: `update webhook_outbox_state set commit_position = ?, prepare_position = ?
           where id = 1 and (commit_position, prepare_position) < (?::numeric, ?::numeric)`,
    bindings: [commit, prepare, commit, prepare],
  };
}

/** A CTE `fresh(ok)`: whether a reused BatchStart still holds (see BatchStart). */
export function freshCheck(start: BatchStart): { sql: string; bindings: string[] } {
  return {
    sql: `fresh as (
      select current_database() = ? and 'webhook_outbox_targets'::regclass::oid::text = ? and targets_version = ?::bigint
             and (commit_position, prepare_position) >= (?::numeric, ?::numeric) as ok
        from webhook_outbox_state where id = 1)`,
    bindings: [start.database, start.table, start.version, start.highWater.commit.toString(), start.highWater.prepare.toString()],
  };
}

/** Someone changed the outbox's copy of the subscriptions: a BatchStart read before no longer holds. */
export function countTargetsChange(trx: Knex.Transaction) {
  return trx.raw('update webhook_outbox_state set targets_version = targets_version + 1 where id = 1');
}

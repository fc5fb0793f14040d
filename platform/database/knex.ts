import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// int8 (bigint) columns as strings would leak into JSON replies as text; counters and positions
// in this service fit in JS numbers except event positions, which the adapters read as BigInt.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/**
 * Limits every pooled session gets at connect time. Without them one forgotten or stuck
 * transaction holds its row locks forever and the projections that need those rows freeze.
 */
export interface SessionTimeouts {
  statementTimeoutMs: number;
  idleInTransactionTimeoutMs: number;
}

export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = { statementTimeoutMs: 30_000, idleInTransactionTimeoutMs: 60_000 };

export function createKnex(url: string, poolMax = 20, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS): Knex {
  return knexFactory({
    client: 'pg',
    connection: {
      connectionString: url,
      // Sent in the startup packet, so they hold from the first statement of every connection.
      statement_timeout: timeouts.statementTimeoutMs,
      idle_in_transaction_session_timeout: timeouts.idleInTransactionTimeoutMs,
    },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 20_000,
  });
}

/**
 * Lift the statement timeout for the rest of one transaction: migrations and a rebuild's switch
 * are long by nature, and cutting them off half-way only makes them start over.
 */
export async function withoutStatementTimeout(trx: Knex): Promise<void> {
  await trx.raw('set local statement_timeout = 0');
}

/** The limits a session of this pool really runs with, for /ready. */
export async function sessionTimeouts(db: Knex): Promise<{ statementTimeout: string; idleInTransactionSessionTimeout: string }> {
  const { rows } = await db.raw(
    `select current_setting('statement_timeout') as "statementTimeout",
            current_setting('idle_in_transaction_session_timeout') as "idleInTransactionSessionTimeout"`,
  );
  return rows[0];
}

/** How many rows a query matches; on a clone, so the same query can still be paged after. */
export async function countOf(query: Knex.QueryBuilder): Promise<number> {
  const [row] = await query.clone().count<Array<{ count: string | number }>>({ count: '*' });
  return Number(row?.count ?? 0);
}

import type { Knex } from 'knex';

type Connection = { query: (sql: string, values: unknown[]) => Promise<{ rows: Record<string, unknown>[] }> };

/** Namespaces keep the service's advisory locks apart from each other and from anyone else's. */
export const LockNamespace = {
  processManager: 0x706d67, // 'pmg'
} as const;

/**
 * Session-level PostgreSQL advisory locks held on one connection set aside from knex's pool:
 * how a process manager runs in one process at a time across the deployment. If this process
 * dies, its session ends and another process takes over. Projections use leases instead
 * (platform/projections/leases.ts): a lock lost with its connection goes unnoticed here.
 */
export class AdvisoryLocks {
  private connection: Connection | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly db: Knex) {}

  private async run(sql: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
    // pg runs one query at a time per connection: queue them instead of overlapping.
    const next = this.queue.then(async () => {
      this.connection ??= await (this.db.client as { acquireConnection(): Promise<Connection> }).acquireConnection();
      return this.connection.query(sql, values);
    });
    this.queue = next.catch(() => undefined);
    return next;
  }

  async tryLock(namespace: number, name: string): Promise<boolean> {
    const { rows } = await this.run('select pg_try_advisory_lock($1, hashtext($2)) as locked', [namespace, name]);
    return rows[0]?.locked === true;
  }

  /** Release every lock and hand the connection back (its session outlives us in the pool). */
  async close(): Promise<void> {
    await this.queue;
    if (!this.connection) return;
    const connection = this.connection;
    this.connection = undefined;
    await connection.query('select pg_advisory_unlock_all()', []).catch(() => undefined);
    await (this.db.client as { releaseConnection(c: unknown): Promise<void> }).releaseConnection(connection);
  }
}

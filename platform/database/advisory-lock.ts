import type { Knex } from 'knex';
import type pg from 'pg';

/** Namespaces keep the service's advisory locks apart from each other and from anyone else's. */
export const LockNamespace = {
  processManager: 0x706d67, // 'pmg'
  committeeConvocation: 0x636f6d, // 'com'
  eventAppend: 0x65766e, // 'evn'
} as const;

/**
 * Runs `work` while this transaction holds the advisory lock `name`: callers across every process
 * that use the same name take turns, and the lock goes with the transaction however it ends. For
 * short check-then-act sections whose check reads a projection the act itself updates.
 */
export async function withTransactionLock<T>(db: Knex, namespace: number, name: string, work: () => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [namespace, name]);
    return work();
  });
}

/**
 * How often a session holding locks proves it is still alive, and how long it may take to answer.
 * A dropped or terminated connection is noticed at once by its socket; this catches one that went
 * silent (a partition), and is generous so that a loaded database does not drop every lock.
 */
const HEARTBEAT_MS = 5000;
const HEARTBEAT_TIMEOUT_MS = 20_000;

type Lost = () => void;

/**
 * The one PostgreSQL session of a process (per knex instance) that holds every session-level
 * advisory lock of its process managers and scheduled jobs, on a connection of its own outside
 * knex's pool. Each holder used to pin a pool connection for as long as it held its lock (seven
 * of twenty with every role running), which the appends, projections and dispatcher then waited
 * for. When the session ends (the connection dropped, the backend terminated, a heartbeat
 * unanswered) every lock it held is gone: their holders are told at once, and the next tryLock
 * opens a new session.
 */
class LockSession {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** Locks held in this session, by key: session-level locks are re-entrant, holders here are not. */
  private readonly held = new Map<string, Lost>();
  private heartbeat: NodeJS.Timeout | undefined;
  users = 0;

  constructor(private readonly db: Knex) {}

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client: pg.Client = await this.db.client.acquireRawConnection();
      const dropped = () => this.dropped(client);
      client.on('error', dropped);
      client.on('end', dropped);
      this.client = client;
      this.heartbeat = setInterval(() => this.beat(client), HEARTBEAT_MS).unref();
      return client;
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** pg runs one query at a time per connection: queue them instead of overlapping. */
  private run(sql: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> {
    const next = this.queue.then(async () => (await this.connect()).query(sql, values));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private beat(client: pg.Client): void {
    if (!this.held.size || this.client !== client) return;
    const timeout = setTimeout(() => this.dropped(client), HEARTBEAT_TIMEOUT_MS);
    this.run('select 1', []).then(
      () => clearTimeout(timeout),
      () => {
        clearTimeout(timeout);
        this.dropped(client);
      },
    );
  }

  /** The session is gone, and every lock with it: tell each holder, once. */
  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    const lost = [...this.held.values()];
    this.held.clear();
    void client.end().catch(() => undefined);
    for (const notify of lost) notify();
  }

  async tryLock(namespace: number, name: string, onLost: Lost): Promise<boolean> {
    const key = `${namespace}:${name}`;
    if (this.held.has(key)) return false;
    const { rows } = await this.run('select pg_try_advisory_lock($1, hashtext($2)) as locked', [namespace, name]);
    if (rows[0]?.locked !== true) return false;
    // Another holder in this process may have won the same key while this one waited.
    if (this.held.has(key)) {
      await this.run('select pg_advisory_unlock($1, hashtext($2))', [namespace, name]);
      return false;
    }
    this.held.set(key, onLost);
    return true;
  }

  async unlock(namespace: number, name: string): Promise<void> {
    const key = `${namespace}:${name}`;
    if (!this.held.delete(key)) return;
    await this.run('select pg_advisory_unlock($1, hashtext($2))', [namespace, name]).catch(() => undefined);
  }

  /** The last user is gone: end the session (it holds nothing by then). */
  async close(): Promise<void> {
    await this.queue;
    // A new holder came while the queue drained: the session is theirs now.
    if (this.users > 0) return;
    const client = this.client;
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.held.clear();
    if (client) await client.end().catch(() => undefined);
  }
}

const sessions = new WeakMap<Knex, LockSession>();

/**
 * One holder's advisory locks (a process manager, a scheduled job), held in the process's shared
 * lock session. `onLost` listeners run as soon as the session ends while this holder holds a lock.
 */
export class AdvisoryLocks {
  private readonly session: LockSession;
  private readonly mine = new Set<string>();
  private readonly listeners = new Set<Lost>();
  private closed = false;

  constructor(db: Knex) {
    let session = sessions.get(db);
    if (!session) sessions.set(db, (session = new LockSession(db)));
    session.users++;
    this.session = session;
  }

  /** Whether this holder holds any lock right now. */
  get holding(): boolean {
    return this.mine.size > 0;
  }

  async tryLock(namespace: number, name: string): Promise<boolean> {
    const key = `${namespace}:${name}`;
    if (this.mine.has(key)) return true;
    const locked = await this.session.tryLock(namespace, name, () => {
      this.mine.delete(key);
      for (const listener of this.listeners) listener();
    });
    if (locked) this.mine.add(key);
    return locked;
  }

  onLost(listener: Lost): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Release this holder's locks; the session ends with its last holder. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    for (const key of [...this.mine]) {
      const [namespace, ...name] = key.split(':');
      await this.session.unlock(Number(namespace), name.join(':'));
    }
    this.mine.clear();
    if (--this.session.users === 0) await this.session.close();
  }
}

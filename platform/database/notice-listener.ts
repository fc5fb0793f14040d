import type { Knex } from 'knex';
import type pg from 'pg';

const MAX_RECONNECT_MS = 5000;

/**
 * What keeps a per-process cache right across processes: a connection of its own, outside the
 * pool, LISTENing on one channel, each notice handed to the cache. The cache keeps entries only
 * while `listening` (a notice missed while the connection is down could leave a stale one); when
 * the connection ends, `onLost` runs and the cache forgets everything, and the next `ready()`
 * after a backoff listens again. Lookups go to the database meanwhile.
 */
export class NoticeListener {
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly db: Knex,
    private readonly channel: string,
    private readonly onNotice: (payload: string) => void,
    private readonly onLost: () => void,
  ) {}

  get listening(): boolean {
    return this.client !== undefined;
  }

  /**
   * Whether the cache may be trusted now. Not listening: false, and listening starts. Listening:
   * true once the notices already on the socket were read (one turn of the loop).
   */
  async ready(): Promise<boolean> {
    if (!this.client) {
      if (!this.closed) this.connecting ??= this.listen();
      return false;
    }
    await new Promise((resolve) => setImmediate(resolve));
    return this.client !== undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.connecting;
    this.drop();
  }

  private async listen(): Promise<void> {
    try {
      const client: pg.Client = await this.db.client.acquireRawConnection();
      client.on('notification', (notice) => this.onNotice(notice.payload ?? ''));
      client.on('error', () => this.drop());
      client.on('end', () => this.drop());
      await client.query(`listen ${this.channel}`);
      // It waits for notices only: it must not keep the process alive on its own.
      (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      this.failures = 0;
    } catch {
      this.failures++;
      if (!this.closed) this.retry = setTimeout(() => (this.connecting = undefined), Math.min(MAX_RECONNECT_MS, 100 * 2 ** this.failures)).unref();
      return;
    }
    this.connecting = undefined;
  }

  private drop(): void {
    const client = this.client;
    this.client = undefined;
    this.onLost();
    if (client) void client.end().catch(() => undefined);
  }
}

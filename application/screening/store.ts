import type { Knex } from 'knex';
import type { Migration } from '../../platform/database/migrate.ts';
import type { ListEntry, ListVersion, ScreeningList } from '../../domain/screening/index.ts';
import { describeSource } from './read-source.ts';

/**
 * Loaded list files (not events: a list is outside data the service keeps a copy of, and every
 * match cites the version it came from in the report's own events). A version is LOADING while
 * its entries are written, CURRENT once complete (one per list), REPLACED when a newer file took
 * its place: its row stays as the history of what was screened against, its entries go.
 */
export const screeningMigrations: Migration[] = [
  {
    name: '202611300300_screening_lists',
    async up(knex) {
      await knex.schema.createTable('screening_list_versions', (t) => {
        t.text('id').primary();
        t.text('list').notNullable();
        t.text('status').notNullable();
        t.text('source').notNullable();
        t.text('published_at');
        t.text('published_at_from');
        t.text('sha256');
        t.bigInteger('byte_count');
        t.integer('entry_count').notNullable().defaultTo(0);
        t.timestamp('loaded_at', { useTz: true }).notNullable();
        t.timestamp('checked_at', { useTz: true });
        t.index(['list', 'status']);
      });
      await knex.schema.createTable('screening_entries', (t) => {
        t.text('version_id').notNullable().references('id').inTable('screening_list_versions').onDelete('CASCADE');
        t.integer('seq').notNullable();
        t.jsonb('entry').notNullable();
        t.primary(['version_id', 'seq']);
      });
    },
    async down(knex) {
      await knex.schema.dropTable('screening_entries');
      await knex.schema.dropTable('screening_list_versions');
    },
  },
  {
    // The last load that failed, per list: the scheduler fails in its own process, the lists
    // route answers from another.
    name: '202612010700_screening_list_failures',
    async up(knex) {
      await knex.schema.createTable('screening_list_failures', (t) => {
        t.text('list').primary();
        t.timestamp('failed_at', { useTz: true }).notNullable();
        t.text('message').notNullable();
      });
    },
    async down(knex) {
      await knex.schema.dropTable('screening_list_failures');
    },
  },
  {
    // A version's source was kept as configured: an address's query (a download token) and
    // userinfo sat in the table, and in every backup of it. The rows keep what the lists route
    // shows instead (describeSource); the configuration still holds the full address.
    name: '202612020000_screening_list_sources_described',
    async up(knex) {
      const rows: Array<{ id: string; source: string }> = await knex('screening_list_versions').select('id', 'source');
      for (const { id, source } of rows) {
        const { location } = describeSource(source);
        if (location !== source) await knex('screening_list_versions').where({ id }).update({ source: location });
      }
    },
    // What was dropped from the sources cannot be put back.
    async down() {},
  },
];

interface VersionRow {
  id: string;
  list: ScreeningList;
  published_at: string;
  published_at_from: 'FILE' | 'FETCH';
  sha256: string;
  entry_count: number;
  loaded_at: Date;
}

const versionOf = (row: VersionRow): ListVersion => ({
  id: row.id,
  list: row.list,
  publishedAt: row.published_at,
  publishedAtFrom: row.published_at_from,
  sha256: row.sha256,
  entryCount: row.entry_count,
  loadedAt: new Date(row.loaded_at).toISOString(),
});

/** Notified when a version becomes current: the processes that screen ask again (screening.ts). */
export const SCREENING_LISTS_CHANNEL = 'screening_lists_changed';

export async function currentVersions(db: Knex): Promise<ListVersion[]> {
  const rows: VersionRow[] = await db('screening_list_versions').where({ status: 'CURRENT' }).orderBy('id');
  return rows.map(versionOf);
}

/** A list's load failed: its message (no source address in it: see describeSource) replaces the last one. */
export async function recordFailure(db: Knex, list: ScreeningList, message: string, at: Date): Promise<void> {
  await db('screening_list_failures').insert({ list, failed_at: at, message }).onConflict('list').merge();
}

/** Each list's current version with when it was last read, and its last failure. */
export async function listStates(
  db: Knex,
): Promise<{ versions: Array<ListVersion & { byteCount: number; checkedAt: string | null }>; failures: Array<{ list: ScreeningList; at: string; message: string }> }> {
  const rows: Array<VersionRow & { byte_count: string | number; checked_at: Date | null }> = await db('screening_list_versions').where({ status: 'CURRENT' }).orderBy('id');
  const failures: Array<{ list: ScreeningList; failed_at: Date; message: string }> = await db('screening_list_failures').orderBy('list');
  return {
    versions: rows.map((row) => ({ ...versionOf(row), byteCount: Number(row.byte_count), checkedAt: row.checked_at ? new Date(row.checked_at).toISOString() : null })),
    failures: failures.map((row) => ({ list: row.list, at: new Date(row.failed_at).toISOString(), message: row.message })),
  };
}

/** The entries of a version, a page at a time (a PEP file has over 100,000). */
export async function* versionEntries(db: Knex, versionId: string, page = 5000): AsyncGenerator<ListEntry[]> {
  for (let after = -1; ;) {
    const rows: Array<{ seq: number; entry: ListEntry }> = await db('screening_entries').where({ version_id: versionId }).andWhere('seq', '>', after).orderBy('seq').limit(page);
    if (rows.length > 0) yield rows.map((row) => row.entry);
    if (rows.length < page) return;
    after = rows[rows.length - 1]!.seq;
  }
}

/** A version being written: entries go in as they are parsed, outside any long transaction. */
export class VersionWriter {
  private seq = 0;

  private constructor(
    private readonly db: Knex,
    readonly id: string,
    readonly list: ScreeningList,
  ) {}

  /**
   * Starts a version, after dropping what an interrupted load of the list left. The row names its
   * source as described (an address without userinfo, query and fragment; a file by its name):
   * a token in the configured address never reaches the table.
   */
  static async begin(db: Knex, id: string, list: ScreeningList, source: string, at: Date): Promise<VersionWriter> {
    await db('screening_list_versions').where({ list, status: 'LOADING' }).delete();
    await db('screening_list_versions').insert({ id, list, status: 'LOADING', source: describeSource(source).location, loaded_at: at });
    return new VersionWriter(db, id, list);
  }

  get count(): number {
    return this.seq;
  }

  async add(entries: ListEntry[]): Promise<void> {
    const rows = entries.map((entry) => ({ version_id: this.id, seq: this.seq++, entry: JSON.stringify(entry) }));
    // 500 rows × 3 parameters stays far below PostgreSQL's 65,535 bind parameters.
    for (let i = 0; i < rows.length; i += 500) await this.db('screening_entries').insert(rows.slice(i, i + 500));
  }

  /**
   * Make the version current unless the current one has the same SHA-256 (the same file again:
   * then this copy goes and the current one is marked checked). Returns whether it replaced.
   */
  async commit(meta: { publishedAt: string; publishedAtFrom: 'FILE' | 'FETCH'; sha256: string; byteCount: number }, at: Date): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const current: { id: string; sha256: string } | undefined = await trx('screening_list_versions').where({ list: this.list, status: 'CURRENT' }).forUpdate().first();
      if (current?.sha256 === meta.sha256) {
        await trx('screening_list_versions').where({ id: this.id }).delete();
        await trx('screening_list_versions').where({ id: current.id }).update({ checked_at: at });
        return false;
      }
      if (current) {
        await trx('screening_entries').where({ version_id: current.id }).delete();
        await trx('screening_list_versions').where({ id: current.id }).update({ status: 'REPLACED' });
      }
      await trx('screening_list_versions')
        .where({ id: this.id })
        .update({ status: 'CURRENT', published_at: meta.publishedAt, published_at_from: meta.publishedAtFrom, sha256: meta.sha256, byte_count: meta.byteCount, entry_count: this.seq, checked_at: at });
      // Sent when the transaction commits, so whoever hears it reads the new version.
      await trx.raw('select pg_notify(?, ?)', [SCREENING_LISTS_CHANNEL, this.list]);
      return true;
    });
  }

  async abandon(): Promise<void> {
    await this.db('screening_list_versions').where({ id: this.id }).delete();
  }
}

import type { Knex } from 'knex';
import type { Migration } from '../platform/database/migrate.ts';

export interface StoredBlob {
  id: string;
  organizationId: string;
  contentType: string;
  fileName: string;
  bytes: Buffer;
  createdAt: Date;
}

/** Files the service produces or receives (report exports today). Ids are ObjectIds chosen by the caller. */
export interface BlobStore {
  put(blob: Omit<StoredBlob, 'createdAt'>): Promise<void>;
  get(id: string): Promise<StoredBlob | null>;
  /** Returns how many existed. */
  delete(ids: readonly string[]): Promise<number>;
}

/**
 * Blobs in a bytea table of the service's own database: nothing more to run on a bare machine.
 * An object store adapter (S3 and the like) would implement the same port for large volumes.
 */
export class PostgresBlobStore implements BlobStore {
  constructor(private readonly db: Knex) {}

  async put(blob: Omit<StoredBlob, 'createdAt'>): Promise<void> {
    await this.db('blobs').insert({
      id: blob.id,
      organization_id: blob.organizationId,
      content_type: blob.contentType,
      file_name: blob.fileName,
      size_bytes: blob.bytes.length,
      bytes: blob.bytes,
    });
  }

  async get(id: string): Promise<StoredBlob | null> {
    const row = await this.db('blobs').where({ id }).first();
    if (!row) return null;
    return { id: row.id, organizationId: row.organization_id, contentType: row.content_type, fileName: row.file_name, bytes: row.bytes, createdAt: row.created_at };
  }

  async delete(ids: readonly string[]): Promise<number> {
    return ids.length ? this.db('blobs').whereIn('id', ids).delete() : 0;
  }
}

export const blobStoreMigrations: Migration[] = [
  {
    name: '202611221001_report_blobs',
    async up(knex) {
      await knex.schema.createTable('blobs', (t) => {
        t.text('id').primary();
        t.text('organization_id').notNullable();
        t.text('content_type').notNullable();
        t.text('file_name').notNullable();
        t.integer('size_bytes').notNullable();
        t.binary('bytes').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      });
    },
    async down(knex) {
      await knex.schema.dropTable('blobs');
    },
  },
];

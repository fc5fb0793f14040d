import { migrations } from '../../application/migrations.ts';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import pg from 'pg';
import { suite } from 'uvu';
import { createKnex } from '../../platform/database/knex.ts';
import { migrateToLatest } from '../../platform/database/migrate.ts';
import { startTestCluster } from './cluster.ts';
import { eventually } from './wait.ts';

export interface TestDatabase {
  url: string;
  knex: Knex;
  /** Close the pool and drop the database. */
  drop(): Promise<void>;
}

let ownCluster: Promise<{ url: string; stop(): Promise<void> }> | undefined;

/**
 * The admin URL of the test cluster: the one `npm test` started (TEST_PG_ADMIN_URL), or, when a
 * suite runs on its own, one started for this process and stopped at exit.
 */
export function clusterUrl(): Promise<string> {
  const shared = process.env.TEST_PG_ADMIN_URL;
  if (shared) return Promise.resolve(shared);
  ownCluster ??= startTestCluster().then((cluster) => {
    process.once('beforeExit', () => void stopOwnCluster());
    return cluster;
  });
  return ownCluster.then((cluster) => cluster.url);
}

/**
 * Stops the cluster clusterUrl started for this process, if it did, and removes its folder.
 * 'beforeExit' does it for a suite; a script that calls process.exit (a bench) calls this first.
 */
export async function stopOwnCluster(): Promise<void> {
  const cluster = ownCluster;
  ownCluster = undefined;
  if (cluster) await (await cluster).stop();
}

/** A fresh, migrated database of its own for one suite. */
export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const admin = await clusterUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = admin.replace(/\/[^/?]*(\?.*)?$/, `/${name}$1`);
  const knex = createKnex(url, 20);
  if (options.migrate !== false) await migrateToLatest(knex, migrations);
  return {
    url,
    knex,
    drop: async () => {
      await knex.destroy();
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** A uvu suite whose tests get a fresh database of their own as `db`, dropped after the suite. */
export function databaseSuite(name: string) {
  const test = suite<{ db: TestDatabase }>(name);
  test.before(async (ctx) => {
    ctx.db = await createTestDatabase();
  });
  test.after(async (ctx) => {
    await ctx.db.drop();
  });
  return test;
}

/** A statement knex sent: its text, its prepared statement's name if any, its bindings. */
export interface SentStatement {
  sql: string;
  name?: string;
  bindings?: readonly unknown[];
}

/** The statements `db` sent while `work` ran, in order (any other work on the pool meanwhile included). */
export async function statementsDuring(db: Knex, work: () => Promise<unknown>): Promise<SentStatement[]> {
  const sent: SentStatement[] = [];
  const listener = (query: { sql: string; bindings?: readonly unknown[]; options?: { name?: string } }) => sent.push({ sql: query.sql, name: query.options?.name, bindings: query.bindings });
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.off('query', listener);
  }
  return sent;
}

/**
 * Resolves once `db` has answered `count` statements that `which` picks among those sent from now
 * on. A poller's reads are sequential, so after two answered reads it has been given what the
 * first one read: the positive signal that a reader has looked since a moment, where a fixed
 * pause could only hope it had.
 */
export async function statementsAnswered(db: Knex, which: (statement: SentStatement) => boolean, count: number): Promise<void> {
  type Query = { __knexQueryUid?: string; sql: string; bindings?: readonly unknown[]; options?: { name?: string } };
  const sent = new Set<string | undefined>();
  let answered = 0;
  const onQuery = (query: Query) => {
    if (which({ sql: query.sql, name: query.options?.name, bindings: query.bindings })) sent.add(query.__knexQueryUid);
  };
  const onResponse = (_response: unknown, query: Query) => {
    if (sent.delete(query.__knexQueryUid)) answered++;
  };
  db.on('query', onQuery);
  db.on('query-response', onResponse);
  try {
    await eventually(() => answered >= count, { what: () => `${count} statements answered (${answered} so far)` });
  } finally {
    db.off('query', onQuery);
    db.off('query-response', onResponse);
  }
}

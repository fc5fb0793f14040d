import * as assert from 'uvu/assert';
import pg from 'pg';
import { ASYNC_COMMIT } from '../../platform/database/async-commit.ts';
import { databaseSuite } from '../support/db.ts';

const test = databaseSuite('database: ASYNC_COMMIT turns off the WAL flush wait of its own statement, only when referenced');

/** One connection, so what a statement leaves behind is seen by the next. */
async function onOneConnection(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

const setting = async (client: pg.Client, sql: string) => (await client.query<{ s: string }>(sql)).rows[0]!.s;

test("referenced, it holds for its statement's own transaction and not after", async ({ db }) => {
  await onOneConnection(db.url, async (client) => {
    assert.is(await setting(client, `with ${ASYNC_COMMIT} select current_setting('synchronous_commit') as s from async_commit`), 'off');
    assert.is(await setting(client, `select current_setting('synchronous_commit') as s`), 'on', 'the pooled connection is left durable');
  });
});

test('unreferenced, it is never run: the statement commits durably', async ({ db }) => {
  await onOneConnection(db.url, async (client) => {
    assert.is(await setting(client, `with ${ASYNC_COMMIT} select current_setting('synchronous_commit') as s`), 'on');
  });
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Knex } from 'knex';
import { CATALOG_PROJECTION } from '../../projections/catalog/projection.ts';
import type { TestApp } from '../support/app.ts';
import { personalCredit } from '../support/catalog.ts';
import { serviceWithTenant } from '../support/identity.ts';

/*
 * One rule for replying after a write (application/read-your-writes.ts): the reply comes from the
 * command's result without waiting for the projection; the caller's next read waits for it.
 * Read-your-writes would wait ten minutes here, so a write that waited for its projection would
 * not answer while the projection is held back.
 */
const test = suite('a write replies from its result while its projection is held back; the next read sees it');
let app: TestApp;
const call = serviceWithTenant(
  test,
  (a) => {
    app = a;
  },
  { READ_YOUR_WRITES_TIMEOUT_MS: '600000' },
);

/** Holds the projection back: its next batch commits with its checkpoint row, which this transaction locks until released. */
async function holdBack(db: Knex, projection: string): Promise<Knex.Transaction> {
  const trx = await db.transaction();
  await trx('projection_checkpoints').insert({ name: projection }).onConflict('name').ignore();
  await trx('projection_checkpoints').where({ name: projection }).forUpdate().first();
  return trx;
}

/** The reply, or a failure naming the wait: far below read-your-writes' ten minutes, far above any reply. */
function answered<T>(reply: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer while its projection was held back: it waited for the read model`)), 30_000);
  });
  return Promise.race([reply, bound]).finally(() => clearTimeout(timer));
}

test('product creation answers from the written state; the GET that follows waits for the projection and sees it', async () => {
  const held = await holdBack(app.app.db, CATALOG_PROJECTION);
  let read: Promise<{ status: number; body: any }>;
  try {
    const created = await answered(call('POST', '/v1/products', { ...personalCredit(), key: 'segurado' }), 'POST /v1/products');
    assert.is(created.status, 200, JSON.stringify(created.body));
    assert.is(created.body.key, 'segurado');
    assert.is(created.body.version, 1);
    const inReadModel = await app.app.db('catalog_products').where({ id: created.body.id }).first();
    assert.not.ok(inReadModel, 'the read model is really behind');
    read = call('GET', `/v1/products/${created.body.id}`);
    const settings = await answered(call('PUT', '/v1/proposal-settings', {}), 'PUT /v1/proposal-settings');
    assert.is(settings.status, 200, JSON.stringify(settings.body));
  } finally {
    await held.commit();
  }
  const after = await read!;
  assert.is(after.status, 200, 'the caller reads its own write');
  assert.is(after.body.key, 'segurado');
  const listed = await call('GET', '/v1/products');
  assert.ok(listed.body.some((p: { key: string }) => p.key === 'segurado'));
});

test.run();

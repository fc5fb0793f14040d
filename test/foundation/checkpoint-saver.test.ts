import bunyan from 'bunyan';
import * as assert from 'uvu/assert';
import { CheckpointSaver } from '../../application/checkpoint-saver.ts';
import type { Position } from '../../platform/eventstore/port.ts';
import { databaseSuite, statementsDuring } from '../support/db.ts';
import { checkpointOf } from './projections-support.ts';

const test = databaseSuite('event followers: the checkpoint saver');
const log = bunyan.createLogger({ name: 'test', level: 'fatal' });
const at = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) });

test('positions given faster than the interval collapse: a write at most every 100 ms, and flush writes the last', async ({ db }) => {
  const name = 'process:saver-burst';
  await db.knex('projection_checkpoints').insert({ name });
  const saver = new CheckpointSaver(db.knex, name, log);
  const started = Date.now();
  let n = 0;
  let elapsed = 0;
  const sent = await statementsDuring(db.knex, async () => {
    // A reaction finishing every 2 ms for 300 ms.
    while (Date.now() - started < 300) {
      saver.save(at(++n));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    elapsed = Date.now() - started;
    await saver.flush();
  });
  const writes = sent.filter((s) => s.sql.startsWith('update') && s.bindings?.includes(name)).length;
  assert.ok(n > 20, `positions given: ${n}`);
  assert.ok(writes <= Math.ceil(elapsed / 100) + 2, `${writes} writes for ${n} positions in ${elapsed} ms`);
  assert.equal(await checkpointOf(db.knex, name), at(n), 'the last position given is stored');
});

test('a lone position is written at once, and nothing is written once discarded', async ({ db }) => {
  const name = 'process:saver-lone';
  await db.knex('projection_checkpoints').insert({ name });
  const saver = new CheckpointSaver(db.knex, name, log);
  saver.save(at(7));
  await saver.flush();
  assert.equal(await checkpointOf(db.knex, name), at(7));
  saver.discard();
  saver.save(at(9));
  await saver.flush();
  assert.equal(await checkpointOf(db.knex, name), at(7));
});

test.run();

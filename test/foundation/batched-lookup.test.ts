import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchedLookup } from '../../application/batched-lookup.ts';

const test = suite('batched lookup: point lookups of one turn in one query');

test('lookups asked in the same turn share one load; a key not found answers undefined', async () => {
  const loads: string[][] = [];
  const lookup = new BatchedLookup(async (keys) => {
    loads.push(keys);
    return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, `value of ${k}`]));
  });
  const answers = await Promise.all([lookup.get('a'), lookup.get('b'), lookup.get('a'), lookup.get('missing')]);
  assert.equal(answers, ['value of a', 'value of b', 'value of a', undefined]);
  assert.equal(loads, [['a', 'b', 'missing']]);
  assert.is(await lookup.get('c'), 'value of c', 'a later turn loads again');
  assert.is(loads.length, 2);
});

test('a failed load fails every lookup of its batch, and the next batch is asked afresh', async () => {
  let fail = true;
  const lookup = new BatchedLookup(async (keys) => {
    if (fail) throw new Error('connection lost');
    return new Map(keys.map((k) => [k, k]));
  });
  const results = await Promise.allSettled([lookup.get('a'), lookup.get('b')]);
  assert.equal(
    results.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  fail = false;
  assert.is(await lookup.get('a'), 'a');
});

test.run();

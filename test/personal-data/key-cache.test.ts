import type { Knex } from 'knex';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseKeyring } from '../../config/secrets.ts';
import { createKnex } from '../../platform/database/knex.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { ERASED, eraseSubject, subjectId, withPersonalData, type PersonalDataRule } from '../../platform/personal-data/index.ts';
import { keyCacheFor } from '../../platform/personal-data/key-cache.ts';
import { SubjectKeys } from '../../platform/personal-data/subject-keys.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { eventually } from '../support/wait.ts';

const pepper = parseKeyring(`p:${'p'.repeat(40)}`, 'PERSONAL_DATA_PEPPER');
const sealing = parseKeyring(`s:${'s'.repeat(40)}`, 'SEALING_KEYS');
const rule: PersonalDataRule = {
  subjectOf: (data) => (typeof data.person === 'string' ? `org:cpf:${data.person}` : null),
  fields: { ThingHappened: ['person'] },
};

/** One service process: its own pool, key cache and decorated store over the shared database. */
interface Process {
  db: Knex;
  keys: SubjectKeys;
  store: EventStore;
  /** subject_keys statements this process has sent. */
  keyQueries(): number;
}

function startProcess(url: string): Process {
  const db = createKnex(url, 5);
  let queries = 0;
  db.on('query', (query: { sql: string }) => void (query.sql.includes('subject_keys') && queries++));
  const keys = new SubjectKeys(db, new SecretBox(sealing, 'personal-data-keys'));
  const store = withPersonalData(new PostgresEventStore(db), { keys, pepper, rules: [rule] });
  return { db, keys, store, keyQueries: () => queries };
}

interface Ctx {
  database: TestDatabase;
  a: Process;
  b: Process;
}
const test = suite<Ctx>('subject keys cached per process; an erased subject is never opened from the cache');

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.a = startProcess(ctx.database.url);
  ctx.b = startProcess(ctx.database.url);
});
test.after.each(async (ctx) => {
  for (const p of [ctx.a, ctx.b]) {
    await p.store.close();
    await p.db.destroy();
  }
  await ctx.database.drop();
});

const person = (ctx: Ctx, p: Process, stream: string) => p.store.readStream(stream).then((events) => events.map((e) => e.data.person));
const erase = (p: Process, document: string) =>
  eraseSubject(p.store, p.keys, { subjectId: subjectId(pepper, `org:cpf:${document}`), organizationId: 'org', erasedBy: null, erasedAt: new Date().toISOString() });

/** Reads until the process listens for erasures, so that the next reads are served from its cache. */
async function warm(ctx: Ctx, p: Process, stream: string): Promise<void> {
  await eventually(async () => (await person(ctx, p, stream), keyCacheFor(p.db).listening), { timeoutMs: 10_000, what: 'the process to listen for erasures' });
  await person(ctx, p, stream);
}

test('reads and appends are served from the cache: no subject_keys query per event', async (ctx) => {
  await ctx.a.store.appendToStream('thing-1', [{ type: 'ThingHappened', data: { person: '52998224725' } }]);
  await warm(ctx, ctx.a, 'thing-1');
  // An append once listening too: the first one ran before, and the write path keeps the subject's live key apart.
  await ctx.a.store.appendToStream('thing-1', [{ type: 'ThingHappened', data: { person: '52998224725' } }]);
  const before = ctx.a.keyQueries();
  for (let i = 0; i < 5; i++) assert.equal(await person(ctx, ctx.a, 'thing-1'), ['52998224725', '52998224725']);
  await ctx.a.store.appendToStream('thing-1', [{ type: 'ThingHappened', data: { person: '52998224725' } }]);
  assert.is(ctx.a.keyQueries(), before, 'five reads and an append of a known subject asked nothing');
});

test('an erasure in this process: the very next read is erased', async (ctx) => {
  await ctx.a.store.appendToStream('thing-2', [{ type: 'ThingHappened', data: { person: '11144477735' } }]);
  await warm(ctx, ctx.a, 'thing-2');
  await erase(ctx.a, '11144477735');
  assert.equal(await person(ctx, ctx.a, 'thing-2'), [ERASED]);
});

test('a field opened once is opened from memory after, until its subject is erased', async (ctx) => {
  await ctx.a.store.appendToStream('thing-6', [{ type: 'ThingHappened', data: { person: '52998224725' } }]);
  await warm(ctx, ctx.a, 'thing-6');
  const [stored] = await new PostgresEventStore(ctx.a.db).readStream('thing-6');
  const sealed = stored!.data.person as string;
  assert.ok(sealed.startsWith('pd1.'), 'stored sealed');
  assert.is(keyCacheFor(ctx.a.db).plain('person', sealed), '"52998224725"', 'remembered by the read');
  assert.is(keyCacheFor(ctx.a.db).plain('other', sealed), undefined, 'for its own field only');
  await erase(ctx.a, '52998224725');
  assert.is(keyCacheFor(ctx.a.db).plain('person', sealed), undefined, 'forgotten with the key');
  assert.equal(await person(ctx, ctx.a, 'thing-6'), [ERASED]);
});

test('an erasure in another process reaches the cache when it commits; no read in flight brings the key back', async (ctx) => {
  await ctx.a.store.appendToStream('thing-3', [{ type: 'ThingHappened', data: { person: '39053344705' } }]);
  await ctx.a.store.appendToStream('thing-4', [{ type: 'ThingHappened', data: { person: '52998224725' } }]);
  await warm(ctx, ctx.a, 'thing-3');
  // Process A reads without pause while B erases: once A reads it erased it never reads it plain again.
  const seen: unknown[] = [];
  let reading = true;
  const reader = (async () => {
    while (reading) seen.push(...(await person(ctx, ctx.a, 'thing-3')));
  })();
  await erase(ctx.b, '39053344705');
  await eventually(() => seen.at(-1) === ERASED, { timeoutMs: 10_000, what: 'process A to read the erasure' });
  const first = seen.indexOf(ERASED);
  await eventually(() => seen.length > first + 20, { what: 'more reads after it' });
  reading = false;
  await reader;
  assert.equal(
    seen.slice(first).filter((value) => value !== ERASED),
    [],
    'never plain again after the notice',
  );
  assert.equal(await person(ctx, ctx.a, 'thing-4'), ['52998224725'], 'another person is still opened');
});

test('while the listening connection is down nothing is cached: an erasure then is seen at the next read', async (ctx) => {
  await ctx.a.store.appendToStream('thing-5', [{ type: 'ThingHappened', data: { person: '11144477735' } }]);
  await warm(ctx, ctx.a, 'thing-5');
  await ctx.database.knex.raw(`select pg_terminate_backend(pid) from pg_stat_activity where query like 'listen %' and datname = current_database()`);
  await eventually(() => !keyCacheFor(ctx.a.db).listening, { timeoutMs: 10_000, what: 'process A to notice its listener is gone' });
  await ctx.b.keys.erase(subjectId(pepper, 'org:cpf:11144477735'), new Date());
  assert.equal(await person(ctx, ctx.a, 'thing-5'), [ERASED]);
});

test.run();

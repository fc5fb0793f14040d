import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseKeyring } from '../../config/secrets.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { EventStore } from '../../platform/eventstore/port.ts';
import { ERASED, ERASED_SUBJECT, eraseSubject, subjectId, withPersonalData, type PersonalDataRule } from '../../platform/personal-data/index.ts';
import { SubjectKeys } from '../../platform/personal-data/subject-keys.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';
import { eventStoreContract } from '../eventstore/contract.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { eventually } from '../support/wait.ts';

const pepper = parseKeyring(`p:${'p'.repeat(40)}`, 'PERSONAL_DATA_PEPPER');
const sealing = parseKeyring(`s:${'s'.repeat(40)}`, 'SEALING_KEYS');

/** A module's whole declaration: which fields of which events, and whose. */
const rule: PersonalDataRule = {
  subjectOf: (data) => (data.person === ERASED ? ERASED_SUBJECT : typeof data.person === 'string' ? `org:cpf:${data.person}` : null),
  fields: { ThingHappened: ['person', 'profile', 'tags'] },
};

function decorated(db: TestDatabase) {
  const keys = new SubjectKeys(db.knex, new SecretBox(sealing, 'personal-data-keys'));
  const raw = new PostgresEventStore(db.knex);
  return { raw, keys, store: withPersonalData(raw, { keys, pepper, rules: [rule] }) };
}

// The decorator must keep every guarantee of the port.
eventStoreContract('postgres with personal data sealing', async () => {
  const db = await createTestDatabase();
  const { store } = decorated(db);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
});

interface Ctx {
  db: TestDatabase;
  raw: EventStore;
  store: EventStore;
  keys: SubjectKeys;
}
const test = suite<Ctx>('personal data store decorator');
test.before(async (ctx) => {
  ctx.db = await createTestDatabase();
  Object.assign(ctx, decorated(ctx.db));
});
test.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

const thing = (person: string, extra: Record<string, unknown> = {}) => ({
  type: 'ThingHappened',
  data: { person, profile: { name: 'Maria da Silva' }, tags: ['vip'], score: 7, note: null, ...extra },
});

test('declared fields are stored sealed, read plain; other fields and event types are untouched', async ({ raw, store }) => {
  await store.appendToStream('thing-1', [thing('52998224725'), { type: 'Other', data: { person: '52998224725' } }]);
  const stored = await raw.readStream('thing-1');
  assert.match(String(stored[0]!.data.person), /^pd1\./);
  assert.not.ok(JSON.stringify(stored[0]!.data).includes('Maria'));
  assert.equal([stored[0]!.data.score, stored[0]!.data.note], [7, null]);
  assert.equal(stored[0]!.metadata.personalDataSubjects, [subjectId(pepper, 'org:cpf:52998224725')]);
  assert.is(stored[1]!.data.person, '52998224725', 'undeclared event types are not sealed');
  const read = await store.readStream('thing-1');
  assert.equal(read[0]!.data, thing('52998224725').data);
  assert.equal((await store.readAll()).events[0]!.data, thing('52998224725').data);
});

test('after erasure every event of the person reads erased, other people do not', async ({ store, keys }) => {
  await store.appendToStream('thing-2', [thing('11144477735'), thing('11144477735')]);
  await store.appendToStream('thing-3', [thing('39053344705')]);
  const subject = subjectId(pepper, 'org:cpf:11144477735');
  const { event } = await eraseSubject(store, keys, { subjectId: subject, organizationId: 'org', erasedBy: null, erasedAt: new Date().toISOString() });
  assert.is(event.keysErased, 1);
  for (const e of await store.readStream('thing-2')) assert.equal(e.data, { person: ERASED, profile: {}, tags: [], score: 7, note: null });
  assert.is((await store.readStream('thing-3'))[0]!.data.person, '39053344705');
  const seen: unknown[] = [];
  const subscription = store.subscribeToAll(async (events) => void seen.push(...events.filter((e) => e.streamName === 'thing-2').map((e) => e.data.person)));
  await eventually(() => seen.length >= 2, { what: 'both events through the subscription' });
  await subscription.stop();
  assert.equal(seen, [ERASED, ERASED], 'subscriptions (projections, rebuilds) read it erased too');
});

test('an event built from erased data is written erased, whatever its fields hold', async ({ raw, store }) => {
  await store.appendToStream('thing-4', [thing(ERASED, { profile: { name: 'came back late' } })]);
  assert.equal((await raw.readStream('thing-4'))[0]!.data.profile, {});
});

test('processes creating the first key of a person at once agree on one', async ({ db, keys }) => {
  const subject = subjectId(pepper, 'org:cpf:concurrent');
  const results = await Promise.all(Array.from({ length: 8 }, () => keys.forSubjects([subject], new Date())));
  assert.is(new Set(results.map((r) => r.get(subject)!.keyId)).size, 1);
  assert.is((await db.knex('subject_keys').where({ subject_id: subject })).length, 1);
});

test.run();

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { erasePersonalData } from '../../application/personal-data/erase.ts';
import { loadConfig, type Config } from '../../config/index.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventstore/port.ts';
import { SUBJECTS_METADATA, withPersonalData } from '../../platform/personal-data/index.ts';
import { sealLegacyEvents } from '../../platform/personal-data/legacy.ts';
import { systemClock } from '../../platform/ids.ts';
import { personalDataOptions } from '../../service/infrastructure.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';

interface Ctx {
  database: TestDatabase;
  dataDir: string;
  config: Config;
  /** The adapter alone: what it appends is stored as given, as before sealing existed. */
  plain: PostgresEventStore;
  store: EventStore;
}
const test = suite<Ctx>('personal-data:seal-legacy: events written before sealing are sealed in place, then shredded by an erasure');

const ORG = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const OTHER_ORG = 'bbbbbbbbbbbbbbbbbbbbbbbb';
const ERASED_CPF = '12345678909';
const KEPT_CPF = '10000000280';

test.before.each(async (ctx) => {
  ctx.database = await createTestDatabase();
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'credit-seal-legacy-'));
  ctx.config = loadConfig({ DATABASE_URL: ctx.database.url, DATA_DIR: ctx.dataDir });
  ctx.plain = new PostgresEventStore(ctx.database.knex);
  ctx.store = withPersonalData(ctx.plain, personalDataOptions(ctx.config, ctx.database.knex));
});
test.after.each(async (ctx) => {
  await ctx.plain.close();
  await ctx.database.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

const requested = (organizationId: string, document: string, reportId: string) => ({
  type: 'ReportRequested',
  data: { reportId, organizationId, document, type: 'cpf', inputs: { income: 9100 }, status: 'PENDING' },
});
const decided = (organizationId: string, document: string, reportId: string) => ({
  type: 'ReportDecided',
  data: { reportId, organizationId, document, type: 'cpf', status: 'APPROVED', commentary: 'Renda confirmada com a cliente', analystName: 'Ana Analista' },
});

/** Legacy events of two people (one in another organization), a sealed one, and one of no rule. */
async function appendHistory(ctx: Ctx): Promise<void> {
  await ctx.plain.appendToStream('report-aaaaaaaaaaaaaaaaaaaaaa01', [requested(ORG, ERASED_CPF, 'r1'), decided(ORG, ERASED_CPF, 'r1')]);
  await ctx.plain.appendToStream('report-aaaaaaaaaaaaaaaaaaaaaa02', [requested(OTHER_ORG, ERASED_CPF, 'r2')]);
  await ctx.plain.appendToStream('report-aaaaaaaaaaaaaaaaaaaaaa03', [requested(ORG, KEPT_CPF, 'r3')]);
  await ctx.plain.appendToStream('other-aaaaaaaaaaaaaaaaaaaaaa04', [{ type: 'SomethingElse', data: { document: ERASED_CPF } }]);
  await ctx.store.appendToStream('report-aaaaaaaaaaaaaaaaaaaaaa05', [requested(ORG, ERASED_CPF, 'r5')]);
}

const rawText = async (ctx: Ctx, streamPrefix = 'report-') =>
  ((await ctx.database.knex('events').where('stream_name', 'like', `${streamPrefix}%`).select(ctx.database.knex.raw('data::text as data'))) as Array<{ data: string }>).map((e) => e.data).join('\n');

const readAll = async (ctx: Ctx): Promise<RecordedEvent[]> => (await ctx.store.readAll()).events;

const seal = (ctx: Ctx, fromStart = false, onBatch?: () => void) =>
  sealLegacyEvents(ctx.database.knex, personalDataOptions(ctx.config, ctx.database.knex), { batchSize: 2, fromStart, now: () => new Date(), onBatch });

test('the legacy fields are sealed as the decorator seals them; they read back the same; a second run changes nothing', async (ctx) => {
  await appendHistory(ctx);
  const before = await readAll(ctx);
  const sealedBefore = (await ctx.database.knex('events').where({ stream_name: 'report-aaaaaaaaaaaaaaaaaaaaaa05' }).first()).data;

  const first = await seal(ctx);
  assert.is(first.sealed, 4, 'the four legacy report events');
  assert.is(first.scanned, before.length);

  const text = await rawText(ctx);
  for (const secret of [ERASED_CPF, KEPT_CPF, 'Renda confirmada', 'Ana Analista', '9100']) assert.not.ok(text.includes(secret), `${secret} still in clear`);
  assert.ok((await rawText(ctx, 'other-')).includes(ERASED_CPF), 'an event no rule declares is left as it was');
  const after = await readAll(ctx);
  assert.equal(
    after.map((e) => e.data),
    before.map((e) => e.data),
    'every event reads back the same through the decorator',
  );
  for (const event of after.filter((e) => e.streamName.startsWith('report-'))) assert.is((event.metadata[SUBJECTS_METADATA] as string[]).length, 1, 'the subject is named as for a new event');
  assert.equal((await ctx.database.knex('events').where({ stream_name: 'report-aaaaaaaaaaaaaaaaaaaaaa05' }).first()).data, sealedBefore, 'an event sealed when appended is untouched');
  assert.is((await ctx.database.knex('subject_keys')).length, 3, 'one key per person and organization, the existing one reused');

  const stored = await ctx.database.knex('events').orderBy('global_position').select('data');
  const again = await seal(ctx, true);
  assert.is(again.sealed, 0, 'idempotent');
  assert.equal(await ctx.database.knex('events').orderBy('global_position').select('data'), stored);
});

test('an erasure after sealing shreds the legacy events too; other people and other organizations keep theirs', async (ctx) => {
  await appendHistory(ctx);
  await seal(ctx);
  await erasePersonalData({ config: ctx.config, db: ctx.database.knex, store: ctx.store, clock: systemClock }, { organizationId: ORG, type: 'cpf', document: ERASED_CPF, erasedBy: null });
  const byReport = new Map((await readAll(ctx)).filter((e) => e.streamName.startsWith('report-')).map((e) => [`${e.data.reportId}:${e.type}`, e.data]));
  assert.is(byReport.get('r1:ReportRequested')!.document, '***');
  assert.equal(byReport.get('r1:ReportRequested')!.inputs, {});
  assert.equal([byReport.get('r1:ReportDecided')!.commentary, byReport.get('r1:ReportDecided')!.analystName], ['***', '***']);
  assert.is(byReport.get('r1:ReportDecided')!.status, 'APPROVED', 'what is not personal stays');
  assert.is(byReport.get('r5:ReportRequested')!.document, '***');
  assert.is(byReport.get('r2:ReportRequested')!.document, ERASED_CPF, 'the same person in another organization');
  assert.is(byReport.get('r3:ReportRequested')!.document, KEPT_CPF, 'another person');
});

test('a person erased before the run gets the legacy fields erased, not sealed under a new key; an interrupted run resumes', async (ctx) => {
  await appendHistory(ctx);
  await erasePersonalData({ config: ctx.config, db: ctx.database.knex, store: ctx.store, clock: systemClock }, { organizationId: ORG, type: 'cpf', document: ERASED_CPF, erasedBy: null });
  let batches = 0;
  const interrupted = await seal(ctx, false, () => {
    if (++batches === 2) throw new Error('interrupted');
  }).catch((error: Error) => error);
  assert.instance(interrupted, Error);
  const resumed = await seal(ctx);
  const total = (await readAll(ctx)).length;
  assert.ok(resumed.scanned < total, `resumed after the saved position (${resumed.scanned} of ${total} scanned)`);
  const text = await rawText(ctx);
  for (const secret of [ERASED_CPF, KEPT_CPF, 'Renda confirmada']) assert.not.ok(text.includes(secret), `${secret} still in clear`);
  const r1 = (await readAll(ctx)).filter((e) => e.data.reportId === 'r1');
  assert.equal(
    r1.map((e) => e.data.document),
    ['***', '***'],
  );
  assert.is((await ctx.database.knex('subject_keys').whereNull('erased_at')).length, 2, 'no new key for the erased person (the other two people got one)');
});

test.run();

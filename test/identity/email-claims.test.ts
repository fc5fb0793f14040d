import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setUserEmail } from '../../application/identity/provisioning-commands.ts';
import { DomainError } from '../../domain/shared/errors.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser } from '../support/console-browser.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { giveLogin, provisionTenant } from '../support/identity.ts';

interface Ctx {
  database: TestDatabase;
  dataDir: string;
  app: TestApp;
}
const test = suite<Ctx>('identity: the stream that keeps an e-mail address unique is named by a keyed hash; older claims are moved at start');
const PASSWORD = 'correct horse battery';

/** How claim streams were named before: anyone holding a list of addresses finds which are logins here. */
const unkeyedStream = (email: string) => `email-${createHash('sha256').update(email).digest('hex').slice(0, 32)}`;
const streamsOf = async (ctx: Ctx, name: string) => ctx.database.knex('events').where('stream_name', name).select('event_type', 'data');
const emailStreams = async (ctx: Ctx) => (await ctx.database.knex('streams').where('stream_name', 'like', 'email-%').pluck('stream_name')) as string[];

test.before(async (ctx) => {
  ctx.database = await createTestDatabase({ migrate: false });
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'credit-test-data-'));
  ctx.app = await startTestApp({}, { database: ctx.database, dataDir: ctx.dataDir });
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.database?.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

test('a new login is claimed under a name no list of addresses gives back; the address stays unique', async (ctx) => {
  const first = await provisionTenant(ctx.app, { name: 'Banco Um' });
  const second = await provisionTenant(ctx.app, { name: 'Banco Dois' });
  const before = await emailStreams(ctx);
  await giveLogin(ctx.app, first.userId, 'ana@um.example', PASSWORD);
  assert.equal(await streamsOf(ctx, unkeyedStream('ana@um.example')), [], 'no stream named by the unkeyed hash');
  const claimed = (await emailStreams(ctx)).filter((name) => !before.includes(name));
  assert.is(claimed.length, 1);
  assert.match(claimed[0]!, /^email-[0-9a-f]{32}$/);

  const taken = await setUserEmail(ctx.app.app, second.userId, 'ANA@um.example').catch((error: unknown) => error);
  assert.ok(taken instanceof DomainError && taken.kind === 'conflict' && taken.message === Messages.emailInUse, String(taken));
});

test('a claim recorded under the unkeyed name is moved to the keyed one at the next start: still unique, still a login, no stream left under the old name', async (ctx) => {
  const first = await provisionTenant(ctx.app, { name: 'Banco Tres' });
  const second = await provisionTenant(ctx.app, { name: 'Banco Quatro' });
  const before = await emailStreams(ctx);
  await giveLogin(ctx.app, first.userId, 'caio@tres.example', PASSWORD);
  const [keyed] = (await emailStreams(ctx)).filter((name) => !before.includes(name));
  // What the code before the key left: the same claim, under the unkeyed name.
  const legacy = unkeyedStream('caio@tres.example');
  await ctx.database.knex.transaction(async (trx) => {
    await trx('streams').where('stream_name', keyed).update({ stream_name: legacy });
    await trx('events').where('stream_name', keyed).update({ stream_name: legacy });
  });
  await ctx.app.stop();
  ctx.app = await startTestApp({}, { database: ctx.database, dataDir: ctx.dataDir });

  assert.equal(await streamsOf(ctx, legacy), [], 'moved away from the unkeyed name');
  const moved = await streamsOf(ctx, keyed!);
  assert.equal(
    moved.map((e) => [e.event_type, e.data.userId]),
    [['EmailClaimed', first.userId]],
  );
  const taken = await setUserEmail(ctx.app.app, second.userId, 'caio@tres.example').catch((error: unknown) => error);
  assert.ok(taken instanceof DomainError && taken.kind === 'conflict', 'the moved claim still holds the address');
  assert.is((await new ConsoleBrowser(ctx.app).signIn('caio@tres.example', PASSWORD)).status, 303, 'the login works as before');

  // A later start finds nothing left to move.
  await ctx.app.stop();
  ctx.app = await startTestApp({}, { database: ctx.database, dataDir: ctx.dataDir });
  assert.is((await streamsOf(ctx, keyed!)).length, 1);
});

test.run();

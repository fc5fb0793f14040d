import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { issueCredential, revokeCredential } from '../../application/identity/provisioning-commands.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startService, type RunningService } from '../../service/bootstrap.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { authenticateOverHttp, provisionTenant } from '../support/identity.ts';
import { PATIENT_READ_YOUR_WRITES } from './patient.ts';
import { readUntil } from '../support/wait.ts';

/**
 * Verified sessions are cached in each API process until the identity read model changes them:
 * two processes on one database, both with the session cached, must both refuse it as soon as the
 * change's notice reaches them (the process that made the change, at once).
 */
interface Ctx {
  app: TestApp;
  other: RunningService;
}
const test = suite<Ctx>('identity: cached sessions end at once in every process');

test.before(async (ctx) => {
  ctx.app = await startTestApp(PATIENT_READ_YOUR_WRITES);
  ctx.other = await startService({ ...ctx.app.app.config, JWT_SECRET: undefined, PORT: 0 });
});
test.after(async (ctx) => {
  await ctx.other.stop();
  await ctx.app.stop();
});

async function get(service: { url?: string }, token: string, method = 'GET'): Promise<{ status: number; body: unknown }> {
  const path = method === 'POST' ? '/auth/logout' : '/auth/session';
  const response = await fetch(service.url + path, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

const refused = { status: 401, body: { code: 401, message: Messages.invalidToken } };

/**
 * What `probe` answers once the notice has reached that process. PostgreSQL hands a NOTIFY to
 * the listening connections when the change commits, but the other process reads it from its
 * socket when its event loop gets there: on a quiet machine that is before the next request,
 * on a loaded one it can take a few milliseconds, so the check gives it up to 2 s. A cache that
 * never hears of the change still fails it.
 */
async function becomes<T>(probe: () => Promise<T>, expected: T): Promise<void> {
  await readUntil(probe, (seen) => JSON.stringify(seen) === JSON.stringify(expected), { timeoutMs: 2_000, what: JSON.stringify(expected) });
}

/** Both processes listen for identity changes (the cache is off until they do) and have the token cached. */
async function cachedEverywhere(ctx: Ctx, token: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    for (const service of [ctx.app, ctx.other]) assert.is((await get(service, token)).status, 200);
    const { rows } = await ctx.app.app.db.raw(`select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'listen identity_changed%'`);
    if (rows[0].n >= 2) break;
    if (Date.now() > deadline) throw new Error('the session caches never started listening');
  }
  // Now that both listen, these lookups fill the caches.
  for (const service of [ctx.app, ctx.other]) assert.is((await get(service, token)).status, 200);
}

test('a logout in one process is refused at once by both, cached or not', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  await cachedEverywhere(ctx, tenant.token);
  assert.is((await get(ctx.other, tenant.token, 'POST')).status, 200);
  assert.equal(await get(ctx.other, tenant.token), refused, 'the process that logged out refuses at once');
  await becomes(() => get(ctx.app, tenant.token), refused);
});

test('a revoked credential ends its cached sessions in every process; other sessions go on', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const second = await issueCredential(ctx.app.app, tenant.userId);
  const secondToken = (await authenticateOverHttp(ctx.app, second.clientId, second.clientSecret)).body.accessToken as string;
  await cachedEverywhere(ctx, tenant.token);
  await cachedEverywhere(ctx, secondToken);
  await revokeCredential(ctx.app.app, tenant.clientId);
  await becomes(() => get(ctx.other, tenant.token), refused);
  await becomes(() => get(ctx.app, tenant.token), refused);
  for (const service of [ctx.app, ctx.other]) assert.is((await get(service, secondToken)).status, 200);
});

test('a cached session sees a change of its permissions at once', async (ctx) => {
  const tenant = await provisionTenant(ctx.app, { modules: ['reports'], permissions: ['can-generate-report'] });
  await cachedEverywhere(ctx, tenant.token);
  const readReport = (service: { url?: string }) => fetch(`${service.url}/v2/report/${'a'.repeat(24)}`, { headers: { authorization: `Bearer ${tenant.token}` } }).then((r) => r.status);
  for (const service of [ctx.app, ctx.other]) assert.is(await readReport(service), 404, 'allowed to look: none there');
  // As the identity projection would write it.
  await ctx.app.app.db('identity_users').where({ id: tenant.userId }).update({ permissions: [] });
  for (const service of [ctx.app, ctx.other]) await becomes(() => readReport(service), 403);
});

test.run();

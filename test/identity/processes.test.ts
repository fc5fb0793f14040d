import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type RunningService } from '../../service/bootstrap.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';

/**
 * Several processes on one database and DATA_DIR: `app` stays up the whole time while `other`
 * is started, stopped and started again, as a second API process or a restart would be.
 */
interface Ctx {
  app: TestApp;
  other?: RunningService;
}
const test = suite<Ctx>('identity: tokens across processes and restarts');

const LIMIT = 10;

test.before(async (ctx) => {
  ctx.app = await startTestApp({ RATE_LIMIT_PER_CREDENTIAL: String(LIMIT) });
});
test.after(async (ctx) => {
  await ctx.other?.stop();
  await ctx.app.stop();
});

/** Another process of the service on the same database and DATA_DIR; the signing key is read from DATA_DIR. */
async function startOther(ctx: Ctx): Promise<RunningService> {
  await ctx.other?.stop();
  ctx.other = await startService({ ...ctx.app.app.config, JWT_SECRET: undefined, PORT: 0 });
  return ctx.other;
}

async function status(service: { url?: string }, token: string, method = 'GET', path = '/auth/session'): Promise<{ status: number; body: unknown }> {
  const response = await fetch(service.url + path, { method, headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

test('a token stays valid across a restart, and a logout in one process ends it in all', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  assert.is((await status(await startOther(ctx), tenant.token)).status, 200);
  const restarted = await startOther(ctx);
  assert.is((await status(restarted, tenant.token)).status, 200);

  assert.is((await status(restarted, tenant.token, 'POST', '/auth/logout')).status, 200);
  for (const service of [ctx.app, restarted]) {
    assert.equal(await status(service, tenant.token), { status: 401, body: { code: 401, message: Messages.invalidToken } });
  }
});

test('rate limits are shared by the processes', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const other = await startOther(ctx);
  for (let i = 0; i < LIMIT; i++) assert.is((await status(i % 2 ? other : ctx.app, tenant.token)).status, 200);
  for (const service of [ctx.app, other]) {
    assert.equal(await status(service, tenant.token), { status: 429, body: { code: 429, message: Messages.rateLimited } });
  }
});

test.run();

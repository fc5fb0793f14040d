import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startService, type RunningService } from '../../service/bootstrap.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { PATIENT_READ_YOUR_WRITES } from './patient.ts';
import { eventually } from '../support/wait.ts';

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
  ctx.app = await startTestApp({ ...PATIENT_READ_YOUR_WRITES, RATE_LIMIT_PER_CREDENTIAL: String(LIMIT) });
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

test("rate limits are shared by the processes, each learning the others' counts at its next sync", async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const other = await startOther(ctx);
  const shared = async () =>
    Number(
      (
        await ctx.app.app
          .db('identity_rate_limits')
          .where({ key: `credential:${tenant.credentialId}` })
          .first()
      )?.points ?? 0,
    );
  let sent = 0;
  let allowed = 0;
  const refusedBy = new Set<unknown>();
  while (refusedBy.size < 2 && sent < 2 * LIMIT + 2) {
    const service = sent % 2 ? other : ctx.app;
    const reply = await status(service, tenant.token);
    sent++;
    if (reply.status === 200) allowed++;
    else {
      assert.equal(reply, { status: 429, body: { code: 429, message: Messages.rateLimited } });
      refusedBy.add(service);
    }
    // Counts are synced in the background: wait for this one, however long a loaded machine takes.
    await eventually(async () => (await shared()) >= sent, { timeoutMs: 30_000, what: `the shared count to reach ${sent}` });
  }
  assert.is(refusedBy.size, 2, 'both processes refuse');
  // Alone, each process would have let LIMIT through; together they let one more than LIMIT at
  // most: a process learns the other's last request only at its own next sync.
  assert.ok(allowed <= LIMIT + 1, `${allowed} allowed`);
});

test.run();

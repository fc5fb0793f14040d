import { spawn, type ChildProcess } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { appendReportEvent, deliveriesOf } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const EVENTS = 40;

interface Ctx {
  app: TestApp;
  receiver: Receiver;
  children: ChildProcess[];
}
const test = suite<Ctx>('webhook: a dispatcher killed mid-delivery loses nothing');

function startDispatcher(ctx: Ctx): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/webhook-dispatcher-child.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: ctx.app.database.url,
      DATA_DIR: ctx.app.app.config.DATA_DIR,
      LOG_LEVEL: 'fatal',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_DISPATCH_CONCURRENCY: '4',
      PROJECTION_POLL_MS: '10',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  ctx.children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`dispatcher child exited early (${code})`)));
  });
}

test.before(async (ctx) => {
  // No dispatcher in the test process: only the children deliver.
  ctx.app = await startTestApp({ ROLES: 'api,projector', WEBHOOK_TIMEOUT_MS: '1000' });
  ctx.children = [];
});
test.after(async (ctx) => {
  for (const child of ctx.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await ctx.receiver?.close();
  await ctx.app.stop();
});

test('SIGKILL while delivering, then two dispatchers: every event arrives at least once, with the same id', async (ctx) => {
  let first: ChildProcess | undefined;
  let killedAt = 0;
  ctx.receiver = await startReceiver((_request, index) => {
    // Kill the first dispatcher while this request is on the wire: its outcome is never recorded.
    if (index === 5 && first) {
      first.kill('SIGKILL');
      killedAt = Date.now();
    }
    return { status: 200, delayMs: 50 };
  });
  const tenant = await provisionTenant(ctx.app);
  const created = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: ctx.receiver.url, events: ['report.status.changed'] } });
  assert.is(created.status, 201);
  for (let i = 0; i < EVENTS; i++) await appendReportEvent(ctx.app, 'ReportDecided', { organizationId: tenant.organizationId });

  first = await startDispatcher(ctx);
  await eventually(async () => killedAt > 0 && first!.signalCode === 'SIGKILL', { timeoutMs: 15_000, what: 'the first dispatcher to be killed' });
  const receivedBeforeRestart = ctx.receiver.received.length;
  await Promise.all([startDispatcher(ctx), startDispatcher(ctx)]);

  await eventually(
    async () => {
      const deliveries = await deliveriesOf(ctx.app, created.body.id);
      return deliveries.length === EVENTS && deliveries.every((d) => d.status === 'succeeded');
    },
    { timeoutMs: 30_000, what: 'every delivery to succeed' },
  );

  const envelopes = ctx.receiver.json();
  const byId = new Map<string, string[]>();
  ctx.receiver.received.forEach((r, i) => byId.set(envelopes[i].id, [...(byId.get(envelopes[i].id) ?? []), r.body]));
  const deliveryIds = (await deliveriesOf(ctx.app, created.body.id)).map((d) => d.id).sort();
  assert.equal([...byId.keys()].sort(), deliveryIds, 'every event arrived, under its delivery id');
  for (const [id, bodies] of byId)
    assert.ok(
      bodies.every((b) => b === bodies[0]),
      `same bytes each time for ${id}`,
    );
  const repeated = [...byId.values()].filter((bodies) => bodies.length > 1).length;
  assert.ok(repeated >= 1, 'the delivery cut by the kill was sent again');
  // Repeated: the 4 requests in flight, plus finished ones whose results were still in the
  // attempt recorder's next batch write when the process died (at most one more round of 4).
  assert.ok(repeated <= 8, `only what the killed process had not recorded is repeated (${repeated})`);
  assert.ok(receivedBeforeRestart >= 6);
});

test.run();

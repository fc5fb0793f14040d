import bunyan from 'bunyan';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseKeyring } from '../../config/secrets.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant } from '../support/identity.ts';
import { attemptsOf, deliveriesOf } from '../support/webhook.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';

interface Ctx {
  app: TestApp;
  receiver: Receiver;
  log: bunyan.RingBuffer;
}
const test = suite<Ctx>('secrets: a dispatcher without the sealing key');

test.before(async (ctx) => {
  // A short timeout makes the claim lease short (timeout + 5 s).
  ctx.log = new bunyan.RingBuffer({ limit: 1000 });
  ctx.app = await startTestApp({ WEBHOOK_TIMEOUT_MS: '300' }, { log: bunyan.createLogger({ name: 'test', streams: [{ type: 'raw', stream: ctx.log, level: 'error' }] }) });
  ctx.receiver = await startReceiver();
});
test.after(async (ctx) => {
  await ctx.receiver.close();
  await ctx.app.stop();
});

test('a secret sealed with a key this process lacks is a configuration error: no attempt, no failure counted, sent once the key is there', async (ctx) => {
  const tenant = await provisionTenant(ctx.app);
  const created = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: `${ctx.receiver.url}/in`, events: ['report.finished'] } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id as string;
  const targets = () => ctx.app.database.knex('webhook_outbox_targets').where({ id });
  const good = (await eventually(() => targets().first(), { timeoutMs: 10_000, what: 'outbox copy' })).sealed_secret as string;
  const elsewhere = new SecretBox(parseKeyring(`gone:${'g'.repeat(40)}`, 'SEALING_KEYS'), 'webhook-signing-secrets').seal(created.body.secret, id);
  await targets().update({ sealed_secret: elsewhere });

  const ping = await ctx.app.call('POST', `/v1/webhook/subscriptions/${id}/ping`, { token: tenant.token });
  assert.is(ping.status, 202);
  // The dispatcher claimed it and found it cannot sign it: from here on it only waits for its lease.
  await eventually(
    () => ctx.log.records.some((r: { msg: string; deliveryId?: string }) => r.msg === 'configuration error: webhook delivery cannot be signed' && r.deliveryId === ping.body.deliveryId),
    {
      what: 'the dispatcher to log that it cannot sign the delivery',
    },
  );
  assert.equal(await attemptsOf(ctx.app, ping.body.deliveryId), [], 'nothing recorded against the receiver');
  assert.is((await deliveriesOf(ctx.app, id))[0]!.status, 'pending');
  assert.is(ctx.receiver.received.length, 0);
  assert.is((await ctx.app.call('GET', `/v1/webhook/subscriptions/${id}`, { token: tenant.token })).body.status, 'ACTIVE');

  await targets().update({ sealed_secret: good });
  const [delivered] = await ctx.receiver.waitFor(1, 15_000);
  assert.ok(receiverAccepts(created.body.secret, delivered!.headers as Record<string, string>, delivered!.body, Math.floor(Date.now() / 1000)));
});

test.run();

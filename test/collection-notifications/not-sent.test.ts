import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readOutbox } from '../../application/messaging/channels/outbox.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  hooks: Receiver;
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('collection notifications: with no real channel an invitation is NOT_SENT, never SENT or DELIVERED');

test.before(async (ctx) => {
  ctx.hooks = await startReceiver();
  // The defaults: no SMTP_URL, WhatsApp in the sandbox.
  ctx.app = await startTestApp();
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  const events = ['collection.message.sent', 'collection.message.failed'];
  const reply = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: `${ctx.hooks.url}/hooks`, events } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.hooks?.close();
});

async function sendCollection(ctx: Ctx, recipient: Record<string, string>, notificationChannel: string) {
  const reply = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [recipient],
      notificationChannel,
      expiryDays: 10,
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return { collectionId: reply.body.id as string, recipientId: reply.body.recipients[0].id as string };
}

const failedHook = (ctx: Ctx, collectionId: string) =>
  eventually(async () => ctx.hooks.json().find((body) => body.event === 'collection.message.failed' && body.data.collectionId === collectionId), {
    timeoutMs: 20_000,
    what: 'collection.message.failed',
  });

async function recipientOf(ctx: Ctx, collectionId: string, recipientId: string) {
  const reply = await ctx.app.call('GET', `/v1/collections/${collectionId}`, { token: ctx.tenant.token });
  assert.is(reply.status, 200);
  return {
    recipient: reply.body.recipients.find((r: { id: string }) => r.id === recipientId),
    trail: reply.body.trail as Array<{ action: string; recipientId: string; payload: Record<string, unknown> }>,
  };
}

test('without SMTP_URL: collection.message.failed with status NOT_SENT and the reason, the recipient FAILED, no collection.message.sent; the sandbox outbox keeps the text', async (ctx) => {
  const { collectionId, recipientId } = await sendCollection(ctx, { name: 'Ana Souza', email: 'ana@example.com' }, 'EMAIL');
  const hook = await failedHook(ctx, collectionId);
  assert.equal(hook.data, {
    collectionId,
    recipientId,
    name: 'Ana Souza',
    email: 'ana@example.com',
    phone: null,
    template: 'COLLECTION_INVITE',
    channels: ['EMAIL'],
    error: MessagingMessages.notSentEmailSandbox,
    status: 'NOT_SENT',
    sandbox: true,
    provenance: { provider: 'sandbox-outbox', sandbox: true },
  });
  const { recipient, trail } = await eventually(
    async () => {
      const current = await recipientOf(ctx, collectionId, recipientId);
      // The trail and the recipient are two read models: each catches up on its own.
      return current.trail.some((e) => e.action === 'RECIPIENT_MESSAGE_FAILED') && current.recipient.status !== 'PENDING' ? current : undefined;
    },
    { what: 'RECIPIENT_MESSAGE_FAILED in the trail and the recipient settled' },
  );
  assert.is(recipient.status, 'FAILED', 'the message did not arrive');
  assert.is(recipient.lastNotifiedAt, null);
  const failed = trail.find((e) => e.action === 'RECIPIENT_MESSAGE_FAILED')!;
  assert.equal([failed.recipientId, failed.payload.error, failed.payload.notSent], [recipientId, MessagingMessages.notSentEmailSandbox, true]);
  // Provenance (issue 37): the trail says what kept the text, the sandbox outbox, a sandbox result.
  assert.equal(failed.payload.provenance, { provider: 'sandbox-outbox', sandbox: true });
  assert.not.ok(trail.some((e) => e.action === 'RECIPIENT_NOTIFIED'));
  assert.not.ok(ctx.hooks.json().some((body) => body.event === 'collection.message.sent' && body.data.collectionId === collectionId));
  const [copy] = await readOutbox(ctx.app.app, (q) => q.where({ channel: 'EMAIL' }).whereIn('message_id', ctx.app.app.db('messaging_messages').where({ collection_id: collectionId }).select('id')));
  assert.is(copy?.to, 'ana@example.com', 'developers can still read what would have gone');
  const [row] = await ctx.app.app.db('messaging_messages').where({ collection_id: collectionId });
  assert.equal([row.status, row.sent_channels, row.error], ['NOT_SENT', [], MessagingMessages.notSentEmailSandbox]);
});

test('the WhatsApp sandbox is no channel either: NOT_SENT with its reason', async (ctx) => {
  const { collectionId, recipientId } = await sendCollection(ctx, { name: 'Bruno Lima', phone: '+5511987654321' }, 'WHATSAPP');
  const hook = await failedHook(ctx, collectionId);
  assert.equal([hook.data.recipientId, hook.data.status, hook.data.error, hook.data.channels], [recipientId, 'NOT_SENT', MessagingMessages.notSentWhatsAppSandbox, ['WHATSAPP']]);
  assert.equal(hook.data.provenance, { provider: 'sandbox-outbox', sandbox: true });
  const { recipient } = await eventually(
    async () => {
      const current = await recipientOf(ctx, collectionId, recipientId);
      return current.recipient.status === 'FAILED' ? current : undefined;
    },
    { timeoutMs: 20_000, what: 'the recipient FAILED' },
  );
  assert.is(recipient.status, 'FAILED');
});

test.run();

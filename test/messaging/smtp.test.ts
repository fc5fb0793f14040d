import { readOutbox } from '../../application/messaging/channels/outbox.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { queueMessage, type QueueMessageInput } from '../../application/messaging/commands.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { findMessage } from '../../projections/messaging/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  smtp: SmtpReceiver;
  app: TestApp;
  tenant: TestTenant;
  hooks: Receiver;
  /** How many times each address was refused with a passing (4xx) reply so far. */
  softRefusals: Map<string, number>;
}
const test = suite<Ctx>('messaging: e-mail through a real SMTP server, failures, webhook, dedupe');

test.before(async (ctx) => {
  ctx.softRefusals = new Map();
  ctx.smtp = await startSmtpReceiver({
    refuse(address) {
      if (address.startsWith('unknown@')) return { code: 550, text: '5.1.1 <unknown@example.com>: Recipient address rejected: User unknown' };
      if (address.startsWith('busy@') && (ctx.softRefusals.get(address) ?? 0) < 1) {
        ctx.softRefusals.set(address, (ctx.softRefusals.get(address) ?? 0) + 1);
        return { code: 451, text: '4.3.0 Try again later' };
      }
      return null;
    },
  });
  ctx.app = await startTestApp({ SMTP_URL: ctx.smtp.url, SMTP_FROM: 'Banco Exemplo <nao-responda@banco.example>', MESSAGING_RETRY_DELAYS: '100ms,200ms' });
  ctx.tenant = await provisionTenant(ctx.app);
  ctx.hooks = await startReceiver();
  const reply = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: `${ctx.hooks.url}/hooks`, events: ['collection.message.failed'] } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.smtp?.close();
  await ctx.hooks?.close();
});

let sequence = 0;
function invite(ctx: Ctx, email: string, overrides: Partial<QueueMessageInput> = {}): QueueMessageInput {
  sequence++;
  return {
    organizationId: ctx.tenant.organizationId,
    dedupeKey: `test:${sequence}`,
    template: 'COLLECTION_INVITE',
    channels: ['EMAIL'],
    to: { name: 'Ana Souza', email, phone: '+5511987654321' },
    correlation: { collectionId: 'c'.repeat(23) + String(sequence % 10), recipientId: 'a'.repeat(24) },
    content: {
      link: `https://app.example/c/token-${sequence}`,
      subjectName: 'Padaria Pão Quente Ltda',
      organizationName: 'Banco Exemplo',
      operatorMessage: null,
      pendingItems: ['Contrato social'],
      expiresAt: null,
    },
    ...overrides,
  };
}

const statusOf = (ctx: Ctx, messageId: string, status: string) =>
  eventually(
    async () => {
      const view = await findMessage(ctx.app.app.db, ctx.tenant.organizationId, messageId);
      return view?.status === status ? view : undefined;
    },
    { timeoutMs: 10_000, what: `message ${messageId} ${status}` },
  );

test('an invitation reaches the SMTP server with its subject, sender, addressee, link and both bodies; the status becomes SENT', async (ctx) => {
  const input = invite(ctx, 'ana@example.com');
  const { messageId } = await queueMessage(ctx.app.app, input);
  const [mail] = await ctx.smtp.waitFor(1);
  assert.is(mail!.subject, 'Banco Exemplo: envio de documentos de Padaria Pão Quente Ltda');
  assert.is(mail!.from?.value[0]?.address, 'nao-responda@banco.example');
  assert.equal((Array.isArray(mail!.to) ? mail!.to[0] : mail!.to)?.value[0], { address: 'ana@example.com', name: 'Ana Souza' });
  assert.match(mail!.text ?? '', /Enviar documentos: https:\/\/app\.example\/c\/token-\d+/);
  assert.match(String(mail!.html), /href="https:\/\/app\.example\/c\/token-\d+"/);
  assert.is(mail!.messageId, `<${messageId}@messaging.credit-analysis>`);
  const view = await statusOf(ctx, messageId, 'SENT');
  assert.equal(view.sentChannels, ['EMAIL']);
  const types = (await ctx.app.app.store.readStream(messageStream(messageId))).map((e) => e.type);
  assert.equal(types, ['MessageQueued', 'MessageSent']);
});

test('the same dedupe key queues one message and sends one mail', async (ctx) => {
  const before = ctx.smtp.mails.length;
  const input = invite(ctx, 'bruno@example.com');
  const first = await queueMessage(ctx.app.app, input);
  const second = await queueMessage(ctx.app.app, { ...input, content: { ...input.content, link: 'https://other' } });
  assert.is(second.messageId, first.messageId);
  assert.is(second.position, null, 'nothing appended');
  await statusOf(ctx, first.messageId, 'SENT');
  assert.is(ctx.smtp.mails.filter((m) => m.messageId === `<${first.messageId}@messaging.credit-analysis>`).length, 1);
  assert.is(ctx.smtp.mails.length, before + 1);
});

test('a passing refusal (451) is tried again after the configured wait, then sent', async (ctx) => {
  const { messageId } = await queueMessage(ctx.app.app, invite(ctx, 'busy@example.com'));
  await statusOf(ctx, messageId, 'SENT');
  const row = await ctx.app.app.db('messaging_deliveries').where({ message_id: messageId }).first();
  assert.equal([row.status, row.attempts], ['sent', 2]);
});

test('a refused recipient (550) fails at once: MessageFailed keeps the server text and collection.message.failed carries the spec data', async (ctx) => {
  const input = invite(ctx, 'unknown@example.com');
  const { messageId } = await queueMessage(ctx.app.app, input);
  const view = await statusOf(ctx, messageId, 'FAILED');
  assert.match(view.error ?? '', /^550 5\.1\.1 <unknown@example\.com>: Recipient address rejected: User unknown/);
  const row = await ctx.app.app.db('messaging_deliveries').where({ message_id: messageId }).first();
  assert.equal([row.status, row.attempts], ['failed', 1], 'a final refusal is not retried');
  const [request] = await ctx.hooks.waitFor(1);
  const envelope = JSON.parse(request!.body);
  assert.is(envelope.event, 'collection.message.failed');
  assert.is(envelope.organizationId, ctx.tenant.organizationId);
  assert.equal(envelope.data, {
    ...input.correlation,
    name: 'Ana Souza',
    email: 'unknown@example.com',
    phone: '+5511987654321',
    template: 'COLLECTION_INVITE',
    channels: ['EMAIL'],
    error: view.error,
    status: 'FAILED',
  });
});

test('BOTH channels: e-mail by SMTP and WhatsApp in the sandbox: SENT on e-mail only, the sandbox WhatsApp row NOT_SENT with its copy kept', async (ctx) => {
  const { messageId } = await queueMessage(ctx.app.app, invite(ctx, 'carla@example.com', { channels: ['EMAIL', 'WHATSAPP'] }));
  const rowsOf = async (id: string) =>
    (await ctx.app.app.db('messaging_deliveries').where({ message_id: id }).orderBy('channel')).map((r: { status: string; last_error: string | null }) => [r.status, r.last_error]);
  await eventually(async () => {
    const rows = await rowsOf(messageId);
    return rows.length === 2 && rows.every(([status]) => status !== 'pending');
  });
  assert.equal(await rowsOf(messageId), [
    ['sent', null],
    ['not_sent', MessagingMessages.notSentWhatsAppSandbox],
  ]);
  const view = await statusOf(ctx, messageId, 'SENT');
  assert.equal(view.sentChannels, ['EMAIL'], 'the sandbox never counts as sent');
  const [chat] = await readOutbox(ctx.app.app, (q) => q.where({ message_id: messageId, channel: 'WHATSAPP' }));
  assert.ok(chat, 'the WhatsApp copy is in the outbox');
  assert.is(chat.to, '+5511987654321');
  assert.match(chat.text, /https:\/\/app\.example\/c\/token-/);

  const noEmail = invite(ctx, 'x', { channels: ['EMAIL', 'WHATSAPP'] });
  const partial = await queueMessage(ctx.app.app, { ...noEmail, to: { ...noEmail.to, email: null } });
  const failed = await statusOf(ctx, partial.messageId, 'FAILED');
  assert.is(failed.error, `EMAIL: ${MessagingMessages.noEmail}; WHATSAPP: ${MessagingMessages.notSentWhatsAppSandbox}`);
});

test.run();

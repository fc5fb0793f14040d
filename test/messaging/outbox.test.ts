import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readOutbox } from '../../application/messaging/channels/outbox.ts';
import { queueMessage } from '../../application/messaging/commands.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { findMessage, messagesOfCollection } from '../../projections/messaging/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('messaging: without SMTP the e-mail is NOT_SENT, its text kept in the sandbox messaging_outbox');

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const COLLECTION = 'c0ffee0000000000000000aa';

test('without SMTP_URL the e-mail lands in messaging_outbox (to, subject, text, html), nothing leaves, and the message is NOT_SENT with the reason, never SENT', async (ctx) => {
  const { messageId } = await queueMessage(ctx.app.app, {
    organizationId: ctx.tenant.organizationId,
    dedupeKey: 'outbox:1',
    template: 'COLLECTION_REMINDER',
    channels: ['EMAIL'],
    to: { name: 'Davi Lima', email: 'davi@example.com', phone: null },
    correlation: { collectionId: COLLECTION, recipientId: 'b'.repeat(24) },
    content: { link: 'https://app.example/c/abc', subjectName: 'Davi Lima', organizationName: 'Banco Exemplo', operatorMessage: null, pendingItems: ['RG'], expiresAt: '2026-12-01T15:00:00.000Z' },
  });
  const row = await eventually(async () => (await readOutbox(ctx.app.app, (q) => q.where({ message_id: messageId })))[0], { timeoutMs: 10_000, what: 'outbox row' });
  assert.equal([row.channel, row.to], ['EMAIL', 'davi@example.com']);
  assert.is(row.subject, 'Lembrete: documentos pendentes de Davi Lima para Banco Exemplo');
  assert.match(row.text, /Prazo: até 01\/12\/2026 às 12:00/);
  assert.match(row.html!, /<li>RG<\/li>/);
  assert.ok(row.createdAt instanceof Date);
  const stored = JSON.stringify(await ctx.app.app.db('messaging_outbox').where({ message_id: messageId }));
  for (const clear of ['davi@example.com', 'Davi Lima', 'https://app.example/c/abc', 'Prazo']) assert.not.ok(stored.includes(clear), `${clear} is sealed at rest`);
  await eventually(async () => (await findMessage(ctx.app.app.db, ctx.tenant.organizationId, messageId))?.status === 'NOT_SENT');
  const listed = await messagesOfCollection(ctx.app.app.db, ctx.tenant.organizationId, COLLECTION);
  assert.equal(
    listed.map((m) => [m.messageId, m.template, m.status, m.sentChannels, m.error]),
    [[messageId, 'COLLECTION_REMINDER', 'NOT_SENT', [], MessagingMessages.notSentEmailSandbox]],
  );
  const events = await ctx.app.app.store.readStream(messageStream(messageId));
  assert.equal(
    events.map((e) => e.type),
    ['MessageQueued', 'MessageNotSent'],
  );
  assert.equal([events[1]!.data.reason, events[1]!.data.sandbox], [MessagingMessages.notSentEmailSandbox, true]);
  assert.is(await findMessage(ctx.app.app.db, 'f'.repeat(24), messageId), null, 'another organization sees nothing');
});

test('the addressee and content are sealed in the stored events, and read back in clear', async (ctx) => {
  const { messageId } = await queueMessage(ctx.app.app, {
    organizationId: ctx.tenant.organizationId,
    dedupeKey: 'outbox:2',
    template: 'COLLECTION_INVITE',
    channels: ['EMAIL'],
    to: { name: 'Eva Prado', email: 'eva@example.com', phone: null },
    correlation: { collectionId: COLLECTION, recipientId: 'c'.repeat(24) },
    content: { link: 'https://app.example/c/secret-token', subjectName: 'Eva Prado', organizationName: 'Banco Exemplo', operatorMessage: null, pendingItems: [], expiresAt: null },
  });
  const raw = await ctx.app.app
    .db('events')
    .where({ stream_name: messageStream(messageId) })
    .select('data');
  assert.ok(raw.length >= 1);
  const stored = JSON.stringify(raw);
  for (const secret of ['eva@example.com', 'Eva Prado', 'secret-token']) assert.not.ok(stored.includes(secret), `${secret} is sealed`);
  const [queued] = await ctx.app.app.store.readStream(messageStream(messageId));
  assert.equal((queued!.data as { to: unknown }).to, { name: 'Eva Prado', email: 'eva@example.com', phone: null });
});

test.run();

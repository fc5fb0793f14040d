import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendDueReminders } from '../../application/collection/notifications/jobs.ts';
import { messageIdFor } from '../../application/messaging/commands.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { findRecipientByToken } from '../../projections/collection/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/wait.ts';
import { detailWhen } from '../collection/support.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

interface Ctx {
  smtp: SmtpReceiver;
  hooks: Receiver;
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('collection notifications: invitations, reminders, completion notices and expiry, end to end');
const DAY_MS = 86_400_000;
/** The service's clock runs this far ahead of the real one (only ever moved forward). */
let offsetMs = 0;

test.before(async (ctx) => {
  ctx.smtp = await startSmtpReceiver({
    refuse(address) {
      if (address.startsWith('refused')) return { code: 550, text: '5.1.1 Mailbox unavailable' };
      return address.startsWith('slow') ? { code: 451, text: '4.3.0 Try again later' } : null;
    },
  });
  ctx.hooks = await startReceiver();
  // The scheduler's jobs run every second so a moved clock is acted on without waiting a minute.
  ctx.app = await startTestApp({ SMTP_URL: ctx.smtp.url, COLLECTION_SCHEDULE_CRON: '* * * * * *', MESSAGING_RETRY_DELAYS: '100ms,60s' });
  ctx.app.app.clock = { now: () => new Date(Date.now() + offsetMs) };
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  const events = ['collection.message.sent', 'collection.message.reminded', 'collection.message.failed', 'collection.expired', 'collection.completed'];
  const reply = await ctx.app.call('POST', '/v1/webhook/subscriptions', { token: ctx.tenant.token, body: { url: `${ctx.hooks.url}/hooks`, events } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.smtp?.close();
  await ctx.hooks?.close();
});

let people = 0;
async function createCollection(ctx: Ctx, extra: Record<string, unknown> = {}) {
  people++;
  const reply = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: `Pessoa ${people}`, email: `pessoa${people}@example.com` }],
      message: 'Precisamos do contrato.',
      notificationChannel: 'EMAIL',
      expiryDays: 10,
      reminderDays: [2],
      send: true,
      ...extra,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return { collectionId: reply.body.id as string, recipientId: reply.body.recipients[0].id as string, email: `pessoa${people}@example.com` };
}

const mailTo = (ctx: Ctx, email: string, subject: RegExp) =>
  eventually(async () => ctx.smtp.mails.find((m) => JSON.stringify(m.to).includes(email) && subject.test(m.subject ?? '')), { timeoutMs: 15_000, what: `mail to ${email}` });

const webhook = (ctx: Ctx, event: string, collectionId: string) =>
  eventually(async () => ctx.hooks.json().find((body) => body.event === event && body.data.collectionId === collectionId), { timeoutMs: 15_000, what: `${event} for ${collectionId}` });

test('a sent collection invites its recipient by e-mail with a working link; the trail records RECIPIENT_NOTIFIED', async (ctx) => {
  const { collectionId, recipientId, email } = await createCollection(ctx);
  const mail = await mailTo(ctx, email, /^Banco Exemplo: envio de documentos de Padaria Exemplo Ltda$/);
  assert.match(mail.text ?? '', /Precisamos do contrato\./);
  assert.match(mail.text ?? '', /- Contrato social/);
  const link = /Enviar documentos: (\S+)/.exec(mail.text ?? '')![1]!;
  assert.ok(link.startsWith(`${ctx.app.app.config.PUBLIC_BASE_URL}/c/`), link);
  const token = link.slice(link.lastIndexOf('/c/') + 3);
  assert.equal(await findRecipientByToken(ctx.app.app.db, token), { organizationId: ctx.tenant.organizationId, collectionId, recipientId, linkVersion: 1 });
  // The mailed link is the recipient's page, served by the service.
  const page = await fetch(link.replace(ctx.app.app.config.PUBLIC_BASE_URL, ctx.app.url), { headers: { accept: 'text/html' } });
  assert.is(page.status, 200);
  assert.match(await page.text(), /Contrato social/);
  const sent = await webhook(ctx, 'collection.message.sent', collectionId);
  assert.equal([sent.data.action, sent.data.recipientId, sent.data.payload.channel], ['RECIPIENT_NOTIFIED', recipientId, 'EMAIL']);
});

test('a reissued link is mailed again with the new token', async (ctx) => {
  const { collectionId, recipientId, email } = await createCollection(ctx);
  await mailTo(ctx, email, /envio de documentos/);
  const reissued = await ctx.app.call('POST', `/v1/collections/${collectionId}/recipients/${recipientId}/reissue-link`, { token: ctx.tenant.token, body: {} });
  assert.is(reissued.status, 200, JSON.stringify(reissued.body));
  const fresh = await eventually(async () => ctx.smtp.mails.find((m) => m.text?.includes(reissued.body.link.url)), { timeoutMs: 15_000, what: 'the new link mailed' });
  assert.ok(JSON.stringify(fresh.to).includes(email));
});

test('a recipient added to a sent collection is invited; a refused address ends in collection.message.failed and RECIPIENT_MESSAGE_FAILED', async (ctx) => {
  const { collectionId } = await createCollection(ctx);
  const added = await ctx.app.call('POST', `/v1/collections/${collectionId}/recipients`, { token: ctx.tenant.token, body: { name: 'Nova Pessoa', email: 'nova@example.com' } });
  assert.is(added.status, 201, JSON.stringify(added.body));
  const mail = await mailTo(ctx, 'nova@example.com', /envio de documentos/);
  assert.ok(mail.text?.includes(added.body.link.url));

  const refused = await ctx.app.call('POST', `/v1/collections/${collectionId}/recipients`, {
    token: ctx.tenant.token,
    body: { name: 'Sem Caixa', email: 'refused@example.com', phone: '+5511999998888' },
  });
  assert.is(refused.status, 201, JSON.stringify(refused.body));
  const recipientId = refused.body.link.recipientId;
  const failed = await webhook(ctx, 'collection.message.failed', collectionId);
  assert.equal(failed.data, {
    collectionId,
    recipientId,
    name: 'Sem Caixa',
    email: 'refused@example.com',
    phone: '+5511999998888',
    template: 'COLLECTION_INVITE',
    channels: ['EMAIL'],
    error: '550 5.1.1 Mailbox unavailable',
    status: 'FAILED',
  });
  const trail = await eventually(
    async () => {
      const reply = await ctx.app.call('GET', `/v1/collections/${collectionId}`, { token: ctx.tenant.token });
      return reply.body.trail.find((e: { action: string; recipientId: string }) => e.action === 'RECIPIENT_MESSAGE_FAILED' && e.recipientId === recipientId);
    },
    { timeoutMs: 15_000, what: 'RECIPIENT_MESSAGE_FAILED in the trail' },
  );
  assert.ok(trail);
});

test('after the configured day (controlled clock) the recipient with a pending item gets one reminder, recorded as RECIPIENT_REMINDED', async (ctx) => {
  const { collectionId, recipientId, email } = await createCollection(ctx);
  await mailTo(ctx, email, /envio de documentos/);
  offsetMs += 2 * DAY_MS + 60_000;
  const reminder = await mailTo(ctx, email, /^Lembrete: documentos pendentes de Padaria Exemplo Ltda para Banco Exemplo$/);
  assert.match(reminder.text ?? '', /\/c\//);
  const reminded = await webhook(ctx, 'collection.message.reminded', collectionId);
  assert.equal([reminded.data.action, reminded.data.recipientId], ['RECIPIENT_REMINDED', recipientId]);
  // Run again (a restart, a second scheduler): the day's key is taken, nothing new is queued.
  await sendDueReminders(ctx.app.app);
  const reminders = ctx.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email) && m.subject?.startsWith('Lembrete'));
  assert.is(reminders.length, 1);
});

test('an invitation waiting for a retry is withdrawn when the collection is canceled: FAILED with the reason, no failure webhook', async (ctx) => {
  const { collectionId } = await createCollection(ctx, { recipients: [{ name: 'Caixa Lenta', email: 'slow@example.com' }] });
  const waiting = await eventually(() => ctx.app.app.db('messaging_deliveries').where({ status: 'pending', attempts: 2 }).whereNotNull('last_error').first(), {
    timeoutMs: 15_000,
    what: 'second attempt refused',
  });
  const canceled = await ctx.app.call('POST', `/v1/collections/${collectionId}/cancel`, { token: ctx.tenant.token, body: {} });
  assert.is(canceled.status, 200, JSON.stringify(canceled.body));
  const view = await eventually(
    async () => {
      const row = await ctx.app.app.db('messaging_messages').where({ id: waiting.message_id }).first();
      return row?.status === 'FAILED' ? row : undefined;
    },
    { timeoutMs: 15_000, what: 'withdrawn' },
  );
  assert.is(view.error, 'Mensagem não enviada: a solicitação foi encerrada antes do envio.');
  const types = (await ctx.app.app.store.readStream(messageStream(waiting.message_id))).map((e) => e.type);
  assert.equal(types, ['MessageQueued', 'MessageWithdrawn']);
});

test('a canceled collection gets no reminder', async (ctx) => {
  const { collectionId, recipientId, email } = await createCollection(ctx, { reminderDays: [1] });
  await mailTo(ctx, email, /envio de documentos/);
  const canceled = await ctx.app.call('POST', `/v1/collections/${collectionId}/cancel`, { token: ctx.tenant.token, body: { reason: 'Cliente desistiu.' } });
  assert.is(canceled.status, 200, JSON.stringify(canceled.body));
  offsetMs += DAY_MS + 60_000;
  await sendDueReminders(ctx.app.app);
  const reminderId = messageIdFor(ctx.tenant.organizationId, `reminder:${collectionId}:${recipientId}:1`);
  assert.equal(await ctx.app.app.store.readStream(messageStream(reminderId)), [], 'no reminder queued');
  assert.is(await ctx.app.app.db('messaging_collection_schedule').where({ collection_id: collectionId }).first(), undefined, 'out of the schedule');
});

test('past its deadline with a pending item the collection expires and collection.expired is delivered', async (ctx) => {
  const { collectionId, email } = await createCollection(ctx, { expiryDays: 1, reminderDays: [] });
  await mailTo(ctx, email, /envio de documentos/);
  offsetMs += DAY_MS + 60_000;
  const expired = await webhook(ctx, 'collection.expired', collectionId);
  assert.is(expired.data.action, 'COLLECTION_EXPIRED');
  // The webhook leaves from the event store; the detail's read model may apply the expiry a moment later.
  const call = (method: string, path: string) => ctx.app.call(method, path, { token: ctx.tenant.token });
  const detail = await detailWhen(ctx.app, call, ctx.tenant.organizationId, collectionId, (d) => d.status === 'EXPIRED', 'the detail showing EXPIRED');
  assert.is(detail.status, 'EXPIRED');
});

test('a completed collection sends its recipients the completion notice', async (ctx) => {
  const { collectionId, email } = await createCollection(ctx);
  await mailTo(ctx, email, /envio de documentos/);
  const detail = await ctx.app.call('GET', `/v1/collections/${collectionId}`, { token: ctx.tenant.token });
  const waived = await ctx.app.call('POST', `/v1/collections/${collectionId}/items/${detail.body.items[0].id}/waive`, { token: ctx.tenant.token, body: { reason: 'Já temos.' } });
  assert.is(waived.status, 200, JSON.stringify(waived.body));
  await webhook(ctx, 'collection.completed', collectionId);
  const notice = await mailTo(ctx, email, /^Banco Exemplo: documentos de Padaria Exemplo Ltda recebidos$/);
  assert.match(notice.text ?? '', /foi concluída/);
});

test.run();

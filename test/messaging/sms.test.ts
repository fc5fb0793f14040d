import nock from 'nock';
import twilio from 'twilio';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { planChannels } from '../../application/messaging/channel-order.ts';
import { readOutbox } from '../../application/messaging/channels/outbox.ts';
import { queueMessage } from '../../application/messaging/commands.ts';
import { smsStatusCallbackUrl } from '../../application/messaging/channels/sms.ts';
import { whatsAppSignature } from '../../application/messaging/whatsapp-status-commands.ts';
import { messageStream, type MessageTemplate } from '../../domain/messaging/events.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const ACCOUNT = `AC${'1a'.repeat(16)}`;
const AUTH_TOKEN = 'twilio-auth-token';
const FROM = '+15005550006';
const TWILIO = 'https://api.twilio.com';
const MESSAGES = `/2010-04-01/Accounts/${ACCOUNT}/Messages.json`;
const GRAPH = 'https://graph.example.test/v21.0';
const META_SECRET = 'meta-app-secret';
/** The Cloud API refuses this number (outside the 24-hour window, not in the allowed list...). */
const WHATSAPP_REFUSED = '+5511911110000';
/** Twilio refuses this one. */
const SMS_REFUSED = '+5511922220000';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  smtp: SmtpReceiver;
  hooks: Receiver;
}
const test = suite<Ctx>('messaging: SMS through Twilio, its signed status callbacks, and the channel order with fallback');

/** What Twilio's Messages API was sent, form-decoded, with its Basic credentials. */
const twilioRequests: Array<{ body: Record<string, string>; authorization: string }> = [];
let smsCount = 0;

test.before(async (ctx) => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  // Twilio's documented replies: 201 with the Message resource; 400 with {code, message, more_info, status}.
  nock(TWILIO)
    .persist()
    .post(MESSAGES)
    .reply(function (_uri, body) {
      const form = Object.fromEntries(new URLSearchParams(body as string));
      twilioRequests.push({ body: form, authorization: String(this.req.headers.authorization) });
      if (form.To === SMS_REFUSED) return [400, { code: 21211, message: `Invalid 'To' Phone Number: ${SMS_REFUSED}`, more_info: 'https://www.twilio.com/docs/errors/21211', status: 400 }];
      const sid = `SM${String(++smsCount).padStart(32, '0')}`;
      return [
        201,
        {
          account_sid: ACCOUNT,
          api_version: '2010-04-01',
          body: form.Body,
          date_created: 'Sun, 29 Nov 2026 10:00:00 +0000',
          date_sent: null,
          date_updated: 'Sun, 29 Nov 2026 10:00:00 +0000',
          direction: 'outbound-api',
          error_code: null,
          error_message: null,
          from: FROM,
          messaging_service_sid: null,
          num_media: '0',
          num_segments: '1',
          price: null,
          price_unit: 'USD',
          sid,
          status: 'queued',
          subresource_uris: { media: `/2010-04-01/Accounts/${ACCOUNT}/Messages/${sid}/Media.json` },
          to: form.To,
          uri: `/2010-04-01/Accounts/${ACCOUNT}/Messages/${sid}.json`,
        },
      ];
    });
  nock(GRAPH)
    .persist()
    .post('/1234567890/messages')
    .reply((_uri, body) =>
      (body as { to: string }).to === WHATSAPP_REFUSED.slice(1)
        ? [400, { error: { message: '(#131030) Recipient phone number not in allowed list', type: 'OAuthException', code: 131030, fbtrace_id: 'A1' } }]
        : [200, { messaging_product: 'whatsapp', contacts: [{ input: (body as { to: string }).to, wa_id: (body as { to: string }).to }], messages: [{ id: 'wamid.HBgN' }] }],
    );
  ctx.smtp = await startSmtpReceiver();
  ctx.hooks = await startReceiver();
  ctx.app = await startTestApp({
    SMTP_URL: ctx.smtp.url,
    WHATSAPP_PROVIDER: 'cloud-api',
    WHATSAPP_API_URL: GRAPH,
    WHATSAPP_PHONE_NUMBER_ID: '1234567890',
    WHATSAPP_TOKEN: 'token-abc',
    WHATSAPP_APP_SECRET: META_SECRET,
    SMS_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT,
    TWILIO_AUTH_TOKEN: AUTH_TOKEN,
    TWILIO_FROM: FROM,
    MESSAGE_CHANNEL_ORDER: 'whatsapp,sms,email',
  });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  const reply = await ctx.app.call('POST', '/v1/webhook/subscriptions', {
    token: ctx.tenant.token,
    body: { url: `${ctx.hooks.url}/hooks`, events: ['collection.message.sent', 'collection.message.failed'] },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.smtp?.close();
  await ctx.hooks?.close();
  nock.cleanAll();
  nock.enableNetConnect();
});

const statusOf = async (ctx: Ctx, messageId: string) => (await ctx.app.app.db('messaging_messages').where({ id: messageId }).first('status'))?.status;
const events = async (ctx: Ctx, messageId: string) => ctx.app.app.store.readStream(messageStream(messageId));
const eventTypes = async (ctx: Ctx, messageId: string) => (await events(ctx, messageId)).map((e) => `${e.type}${e.data.channel ? `:${e.data.channel}` : ''}`);

let keys = 0;
async function queue(ctx: Ctx, to: { email: string | null; phone: string | null }, template: MessageTemplate = 'COLLECTION_INVITE', routes: string[][] = [['WHATSAPP', 'SMS', 'EMAIL']]) {
  const { messageId } = await queueMessage(ctx.app.app, {
    organizationId: ctx.tenant.organizationId,
    dedupeKey: `sms-test:${++keys}`,
    template,
    ...planChannels(ctx.app.app.config, routes as Array<Array<'EMAIL' | 'WHATSAPP' | 'SMS'>>, to),
    to: { name: 'Ana', ...to },
    correlation: { collectionId: 'a'.repeat(24), recipientId: 'b'.repeat(24) },
    content: {
      link: 'https://app.example/c/abc',
      subjectName: 'Padaria Exemplo',
      organizationName: 'Banco Exemplo',
      operatorMessage: 'Uma mensagem longa do operador que não cabe num SMS.',
      pendingItems: ['Contrato social'],
      expiresAt: '2026-11-30T13:10:00.000Z',
      code: '123456',
    },
  });
  return messageId;
}

/** A status callback as Twilio posts it: form-encoded, signed over the URL it was given and the sorted parameters. */
function callback(ctx: Ctx, messageId: string, params: Record<string, string>, token = AUTH_TOKEN) {
  const url = smsStatusCallbackUrl(ctx.app.app.config, messageId);
  return { body: new URLSearchParams(params).toString(), signature: twilio.getExpectedTwilioSignature(token, url, params) };
}
const post = (ctx: Ctx, messageId: string, body: string, signature: string | null, contentType = 'application/x-www-form-urlencoded') =>
  fetch(`${ctx.app.url}/callbacks/twilio/sms?message=${messageId}`, { method: 'POST', headers: { 'content-type': contentType, ...(signature ? { 'x-twilio-signature': signature } : {}) }, body });
const statusParams = (sid: string, status: string, extra: Record<string, string> = {}) => ({
  AccountSid: ACCOUNT,
  ApiVersion: '2010-04-01',
  From: FROM,
  MessageSid: sid,
  MessageStatus: status,
  SmsSid: sid,
  SmsStatus: status,
  To: '+5511987654321',
  ...extra,
});

async function sentOnSms(ctx: Ctx, phone: string, template: MessageTemplate = 'SIGNATURE_CODE') {
  const messageId = await queue(ctx, { email: null, phone }, template, [['SMS']]);
  const sent = await eventually(async () => (await events(ctx, messageId)).find((e) => e.type === 'MessageSent'), { what: 'Twilio took it' });
  return { messageId, sid: String(sent.data.providerMessageId) };
}

test('Twilio takes an SMS: the Messages API gets the short text, the sender and a StatusCallback naming the message; SENT with its SM sid', async (ctx) => {
  const { messageId, sid } = await sentOnSms(ctx, '+5511987654321');
  const request = twilioRequests.find((r) => r.body.StatusCallback?.endsWith(messageId))!;
  assert.equal(request.body, {
    To: '+5511987654321',
    From: FROM,
    Body: 'Banco Exemplo: seu código para assinar é 123456, válido até 10:10 (Brasília). Não o compartilhe.',
    StatusCallback: `${ctx.app.app.config.PUBLIC_BASE_URL}/callbacks/twilio/sms?message=${messageId}`,
  });
  assert.is(request.authorization, `Basic ${Buffer.from(`${ACCOUNT}:${AUTH_TOKEN}`).toString('base64')}`);
  assert.match(sid, /^SM\d{32}$/);
  await eventually(async () => (await statusOf(ctx, messageId)) === 'SENT', { what: 'SENT in the read model' });
});

test("an invitation by SMS is the link and who sends it, not the e-mail's lists and operator's words", async (ctx) => {
  const { messageId } = await sentOnSms(ctx, '+5511987654322', 'COLLECTION_INVITE');
  const body = twilioRequests.find((r) => r.body.StatusCallback?.endsWith(messageId))!.body.Body!;
  assert.is(body, 'Banco Exemplo: envie os documentos de Padaria Exemplo em https://app.example/c/abc');
});

test("a number Twilio refuses (400, 21211) fails at once with the API's words", async (ctx) => {
  const messageId = await queue(ctx, { email: null, phone: SMS_REFUSED }, 'SIGNATURE_CODE', [['SMS']]);
  const failed = await eventually(async () => (await events(ctx, messageId)).find((e) => e.type === 'MessageFailed'), { what: 'MessageFailed' });
  assert.is(failed.data.error, `Twilio HTTP 400: Invalid 'To' Phone Number: ${SMS_REFUSED} (código 21211)`);
});

test('a signed "delivered" makes the message DELIVERED once; a forged, missing or replayed-elsewhere signature changes nothing', async (ctx) => {
  const { messageId, sid } = await sentOnSms(ctx, '+5511987654323');
  const { body, signature } = callback(ctx, messageId, statusParams(sid, 'delivered'));
  const forged = await post(ctx, messageId, body, callback(ctx, messageId, statusParams(sid, 'delivered'), 'another-token').signature);
  assert.equal([forged.status, (await forged.json()).message], [401, MessagingMessages.badSignature]);
  assert.is((await post(ctx, messageId, body, null)).status, 401);
  // The signature covers the parameters and the URL: another status, or the same callback sent for another message, does not match.
  assert.is((await post(ctx, messageId, body.replace('delivered', 'undelivered'), signature)).status, 401);
  const other = await queue(ctx, { email: null, phone: '+5511987654399' }, 'SIGNATURE_CODE', [['SMS']]);
  assert.is((await post(ctx, other, body, signature)).status, 401);
  assert.not.ok((await eventTypes(ctx, messageId)).includes('MessageDelivered:SMS'));

  const signed = await post(ctx, messageId, body, signature);
  assert.equal([signed.status, await signed.json()], [200, { recorded: 1 }]);
  assert.equal(await (await post(ctx, messageId, body, signature)).json(), { recorded: 0 }, 'a repeated callback records nothing');
  assert.equal((await eventTypes(ctx, messageId)).filter((t) => t === 'MessageDelivered:SMS').length, 1);
  await eventually(async () => (await statusOf(ctx, messageId)) === 'DELIVERED', { what: 'DELIVERED in the read model' });
});

test('queued and sent are acknowledged and change nothing; a bad message id is a 400, a JSON or oversized body is refused before anything is recorded', async (ctx) => {
  const { messageId, sid } = await sentOnSms(ctx, '+5511987654324');
  for (const status of ['queued', 'sent']) {
    const { body, signature } = callback(ctx, messageId, statusParams(sid, status));
    const reply = await post(ctx, messageId, body, signature);
    assert.equal([reply.status, await reply.json()], [200, { recorded: 0 }], status);
  }
  const bad = await fetch(`${ctx.app.url}/callbacks/twilio/sms?message=nope`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' });
  assert.equal([bad.status, (await bad.json()).message], [400, MessagingMessages.badCallbackMessage]);
  const json = await post(ctx, messageId, JSON.stringify(statusParams(sid, 'delivered')), 'x', 'application/json');
  assert.is(json.status, 401);
  const big = callback(ctx, messageId, statusParams(sid, 'delivered', { Padding: 'x'.repeat(20_000) }));
  const oversized = await post(ctx, messageId, big.body, big.signature);
  assert.equal([oversized.status, typeof (await oversized.json()).message], [413, 'string']);
  assert.is(await statusOf(ctx, messageId), 'SENT');
});

test('channel order: WhatsApp refused, SMS takes it; the SMS undelivered, e-mail takes it; each hand-over is an event of the message', async (ctx) => {
  const messageId = await queue(ctx, { email: 'ana@example.com', phone: WHATSAPP_REFUSED });
  const queued = (await events(ctx, messageId))[0]!;
  assert.equal([queued.data.channels, queued.data.fallback], [['WHATSAPP', 'SMS', 'EMAIL'], { WHATSAPP: 'SMS', SMS: 'EMAIL' }]);
  const sent = await eventually(async () => (await events(ctx, messageId)).find((e) => e.type === 'MessageSent'), { what: 'sent on SMS' });
  assert.is(sent.data.channel, 'SMS');
  const handOver = (await events(ctx, messageId)).find((e) => e.type === 'MessageChannelFailed')!;
  assert.equal([handOver.data.channel, handOver.data.next, handOver.data.error], ['WHATSAPP', 'SMS', 'WhatsApp HTTP 400: (#131030) Recipient phone number not in allowed list (código 131030)']);
  assert.not.ok(
    ctx.smtp.mails.some((m) => JSON.stringify(m.to).includes('ana@example.com')),
    'no e-mail while the SMS stands',
  );

  const { body, signature } = callback(ctx, messageId, statusParams(String(sent.data.providerMessageId), 'undelivered', { ErrorCode: '30003' }));
  assert.equal(await (await post(ctx, messageId, body, signature)).json(), { recorded: 1 });
  await eventually(async () => ctx.smtp.mails.find((m) => JSON.stringify(m.to).includes('ana@example.com')), { what: 'the e-mail took over' });
  await eventually(async () => (await eventTypes(ctx, messageId)).includes('MessageSent:EMAIL'), { what: 'MessageSent on e-mail' });
  assert.equal(await eventTypes(ctx, messageId), ['MessageQueued', 'MessageChannelFailed:WHATSAPP', 'MessageSent:SMS', 'MessageChannelFailed:SMS', 'MessageSent:EMAIL']);
  const smsFailed = (await events(ctx, messageId)).filter((e) => e.type === 'MessageChannelFailed')[1]!;
  assert.equal([smsFailed.data.error, smsFailed.data.next], ['Twilio: o SMS não foi entregue (código 30003)', 'EMAIL']);
  assert.is(await statusOf(ctx, messageId), 'SENT');
});

test("WhatsApp's failed status takes the path of an SMS undelivered: MessageChannelFailed, and the SMS takes over", async (ctx) => {
  const messageId = await queue(ctx, { email: null, phone: '+5511987654321' });
  const sent = await eventually(async () => (await events(ctx, messageId)).find((e) => e.type === 'MessageSent'), { what: 'sent on WhatsApp' });
  assert.is(sent.data.channel, 'WHATSAPP');
  // Meta's status callback (the `messages` field), signed with the app secret over the exact body.
  const raw = JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '5511300000000', phone_number_id: '1234567890' },
              statuses: [
                {
                  id: sent.data.providerMessageId,
                  status: 'failed',
                  timestamp: '1795435200',
                  recipient_id: '5511987654321',
                  biz_opaque_callback_data: messageId,
                  errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }],
                },
              ],
            },
          },
        ],
      },
    ],
  });
  const meta = () =>
    fetch(`${ctx.app.url}/callbacks/whatsapp`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsAppSignature(META_SECRET, raw) }, body: raw });
  assert.equal(await (await meta()).json(), { recorded: 1 });
  assert.equal(await (await meta()).json(), { recorded: 0 }, 'a repeated status records nothing');
  await eventually(async () => (await eventTypes(ctx, messageId)).includes('MessageSent:SMS'), { what: 'the SMS took over' });
  assert.equal(await eventTypes(ctx, messageId), ['MessageQueued', 'MessageSent:WHATSAPP', 'MessageChannelFailed:WHATSAPP', 'MessageSent:SMS']);
  const lost = (await events(ctx, messageId)).find((e) => e.type === 'MessageChannelFailed')!;
  assert.equal([lost.data.error, lost.data.next], ['WhatsApp 131026: Message undeliverable - Message Undeliverable.', 'SMS']);
  assert.ok(
    twilioRequests.some((r) => r.body.To === '+5511987654321' && r.body.StatusCallback?.endsWith(`message=${messageId}`)),
    'Twilio was asked for the SMS',
  );
  await eventually(async () => (await statusOf(ctx, messageId)) === 'SENT', { what: 'SENT in the read model' });
});

test('a channel the person has no address for is skipped: no phone, the e-mail goes first and alone', async (ctx) => {
  const messageId = await queue(ctx, { email: 'bia@example.com', phone: null });
  await eventually(async () => (await eventTypes(ctx, messageId)).includes('MessageSent:EMAIL'), { what: 'sent by e-mail' });
  assert.equal((await events(ctx, messageId))[0]!.data.channels, ['EMAIL']);
});

test('a collection whose channel is WHATSAPP: WhatsApp refused, SMS invites; undelivered with no channel left, collection.message.failed names both', async (ctx) => {
  const created = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Carla', email: 'carla@example.com', phone: WHATSAPP_REFUSED }],
      notificationChannel: 'WHATSAPP',
      expiryDays: 10,
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.id as string;
  const message = await eventually(
    async () => {
      const row = await ctx.app.app.db('messaging_messages').where({ collection_id: collectionId, status: 'SENT' }).first();
      return row;
    },
    { what: 'the invitation SENT' },
  );
  assert.equal([message.channels, message.sent_channels], [['WHATSAPP', 'SMS'], ['SMS']]);
  const notified = await eventually(async () => ctx.hooks.json().find((b) => b.event === 'collection.message.sent' && b.data.collectionId === collectionId), { what: 'collection.message.sent' });
  assert.ok(notified);
  const sid = (await events(ctx, message.id)).find((e) => e.type === 'MessageSent')!.data.providerMessageId as string;
  const { body, signature } = callback(ctx, message.id, statusParams(sid, 'failed', { ErrorCode: '30008' }));
  assert.equal(await (await post(ctx, message.id, body, signature)).json(), { recorded: 2 }, 'the SMS failed, and with it the message');
  const failed = await eventually(async () => ctx.hooks.json().find((b) => b.event === 'collection.message.failed' && b.data.collectionId === collectionId), { what: 'collection.message.failed' });
  assert.equal(
    [failed.data.channels, failed.data.status, failed.data.error],
    [['WHATSAPP', 'SMS'], 'FAILED', 'WHATSAPP: WhatsApp HTTP 400: (#131030) Recipient phone number not in allowed list (código 131030); SMS: Twilio: o SMS não pôde ser enviado (código 30008)'],
  );
  assert.not.ok(
    ctx.smtp.mails.some((m) => JSON.stringify(m.to).includes('carla@example.com')),
    'WHATSAPP means the phone: no e-mail',
  );
  await eventually(async () => (await statusOf(ctx, message.id)) === 'FAILED', { what: 'FAILED in the read model' });
});

test('the SMS sandbox keeps the short text in the outbox and says NOT_SENT, marked sandbox', async () => {
  const sandbox = await startTestApp({ SMS_PROVIDER: 'sandbox', MESSAGE_CHANNEL_ORDER: 'sms,whatsapp,email' });
  try {
    const tenant = await provisionTenant(sandbox);
    const { messageId } = await queueMessage(sandbox.app, {
      organizationId: tenant.organizationId,
      dedupeKey: 'sandbox-sms',
      template: 'SIGNATURE_CODE',
      ...planChannels(sandbox.app.config, [['WHATSAPP', 'SMS']], { email: null, phone: '+5511987654321' }),
      to: { name: 'Ana', email: null, phone: '+5511987654321' },
      correlation: { collectionId: 'a'.repeat(24), recipientId: 'b'.repeat(24) },
      content: { link: null, subjectName: 'Padaria', organizationName: 'Banco Exemplo', operatorMessage: null, pendingItems: [], expiresAt: null, code: '654321' },
    });
    const notSent = await eventually(async () => (await sandbox.app.store.readStream(messageStream(messageId))).find((e) => e.type === 'MessageNotSent'), { what: 'NOT_SENT' });
    assert.equal([notSent.data.channels, notSent.data.sandbox], [['SMS', 'WHATSAPP'], true]);
    assert.is(notSent.data.reason, `SMS: ${MessagingMessages.notSentSmsSandbox}; WHATSAPP: ${MessagingMessages.notSentWhatsAppSandbox}`);
    const [sms] = await readOutbox(sandbox.app, (q) => q.where({ message_id: messageId, channel: 'SMS' }));
    assert.is(sms!.text, 'Banco Exemplo: seu código para assinar é 654321. Não o compartilhe.');
  } finally {
    await sandbox.stop();
  }
});

test.run();

import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { whatsAppSignature } from '../../application/messaging/whatsapp-status-commands.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/wait.ts';

const ACCOUNT = `AC${'2b'.repeat(16)}`;
const TWILIO = 'https://api.twilio.com';
const GRAPH = 'https://graph.example.test/v21.0';
const PHONE_NUMBER_ID = '1234567890';
const META_SECRET = 'meta-app-secret';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  smtp: SmtpReceiver;
}
const test = suite<Ctx>("messaging: the organization's and the recipient's channel order, BOTH one channel at a time, and a channel lost after taking the message in the collection's trail");

/** Who each provider was asked to reach. */
const whatsAppTo: string[] = [];
const smsTo: string[] = [];

test.before(async (ctx) => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  nock(GRAPH)
    .persist()
    .post(`/${PHONE_NUMBER_ID}/messages`)
    .reply((_uri, body) => {
      const sent = body as { to: string; biz_opaque_callback_data: string };
      whatsAppTo.push(sent.to);
      return [200, { messaging_product: 'whatsapp', contacts: [{ input: sent.to, wa_id: sent.to }], messages: [{ id: `wamid.${sent.biz_opaque_callback_data}` }] }];
    });
  nock(TWILIO)
    .persist()
    .post(`/2010-04-01/Accounts/${ACCOUNT}/Messages.json`)
    .reply((_uri, body) => {
      const form = Object.fromEntries(new URLSearchParams(body as string));
      smsTo.push(form.To!);
      return [201, { account_sid: ACCOUNT, sid: `SM${'0'.repeat(31)}${smsTo.length}`, status: 'queued', to: form.To, body: form.Body }];
    });
  ctx.smtp = await startSmtpReceiver();
  ctx.app = await startTestApp({
    SMTP_URL: ctx.smtp.url,
    WHATSAPP_PROVIDER: 'cloud-api',
    WHATSAPP_API_URL: GRAPH,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_TOKEN: 'token-abc',
    WHATSAPP_APP_SECRET: META_SECRET,
    SMS_PROVIDER: 'twilio',
    TWILIO_ACCOUNT_SID: ACCOUNT,
    TWILIO_AUTH_TOKEN: 'twilio-auth-token',
    TWILIO_FROM: '+15005550006',
    MESSAGE_CHANNEL_ORDER: 'whatsapp,sms,email',
  });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.smtp?.close();
  nock.cleanAll();
  nock.enableNetConnect();
});

const settings = (ctx: Ctx, body?: unknown, token = ctx.tenant.token) => ctx.app.call(body === undefined ? 'GET' : 'PUT', '/v1/messaging/settings', { token, ...(body === undefined ? {} : { body }) });

let people = 0;
/** A sent collection to one person with an e-mail and a phone; returns its ids and the person's addresses. */
async function collectionTo(ctx: Ctx, recipient: Record<string, unknown> = {}, notificationChannel = 'BOTH') {
  people++;
  const person = { name: `Pessoa ${people}`, email: `pessoa${people}@example.com`, phone: `+55119876${String(people).padStart(5, '0')}`, ...recipient };
  const reply = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [person],
      notificationChannel,
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return { collectionId: reply.body.id as string, recipient: reply.body.recipients[0] as { id: string; channelOrder: string[] | null }, person };
}

/** The invitation's message stream, once the collection side queued it and its first channel answered. */
async function invitation(ctx: Ctx, collectionId: string, until: (types: string[]) => boolean) {
  return eventually(
    async () => {
      const row = await ctx.app.app.db('messaging_messages').where({ organization_id: ctx.tenant.organizationId, collection_id: collectionId }).first('id');
      if (!row) return null;
      const events = await ctx.app.app.store.readStream(messageStream(row.id));
      const types = events.map((e) => `${e.type}${e.data.channel ? `:${e.data.channel}` : ''}`);
      return until(types) ? { messageId: row.id as string, events, types } : null;
    },
    { timeoutMs: 20_000, what: `the invitation of ${collectionId}` },
  );
}

/** The collection's audit trail over HTTP, oldest first. */
const trailOf = async (ctx: Ctx, collectionId: string) => {
  const reply = await ctx.app.call('GET', `/v1/collections/${collectionId}/trail?take=100`, { token: ctx.tenant.token });
  assert.is(reply.status, 200, JSON.stringify(reply.body));
  return reply.body.entries as Array<{ action: string; payload: Record<string, unknown> }>;
};

test('GET /v1/messaging/settings: null until saved; PUT refuses unknown, repeated or empty orders with the error body and keeps the last good one', async (ctx) => {
  const initial = await settings(ctx);
  assert.equal([initial.status, initial.body], [200, { channelOrder: null }]);
  for (const channelOrder of [['FAX'], ['SMS', 'SMS'], [], 'EMAIL', ['email']]) {
    const refused = await settings(ctx, { channelOrder });
    assert.is(refused.status, 400, JSON.stringify(channelOrder));
    assert.equal(refused.body.code, 400);
    assert.match(refused.body.message, MessagingMessages.invalidChannelOrder);
  }
  const missing = await settings(ctx, {});
  assert.is(missing.status, 400);
  assert.ok(missing.body.message, 'a clear message');
  const saved = await settings(ctx, { channelOrder: ['SMS', 'EMAIL'] });
  assert.equal([saved.status, saved.body], [200, { channelOrder: ['SMS', 'EMAIL'] }]);
  assert.equal((await settings(ctx)).body, { channelOrder: ['SMS', 'EMAIL'] });
  const other = await provisionTenant(ctx.app, { name: 'Outro Banco' });
  assert.equal((await settings(ctx, undefined, other.token)).body, { channelOrder: null }, "one organization's order is its own");
  assert.equal((await settings(ctx, { channelOrder: null })).body, { channelOrder: null });
});

test("BOTH to a person with e-mail and phone: one channel, the organization's first, not e-mail and phone at once; a recipient's own order wins", async (ctx) => {
  assert.is((await settings(ctx, { channelOrder: ['EMAIL', 'WHATSAPP'] })).status, 200);
  const byOrganization = await collectionTo(ctx);
  assert.is(byOrganization.recipient.channelOrder, null);
  const first = await invitation(ctx, byOrganization.collectionId, (types) => types.includes('MessageSent:EMAIL'));
  assert.equal(first.events[0]!.data.channels, ['EMAIL', 'WHATSAPP', 'SMS'], "the organization's order, then the deployment's for what it leaves out");
  assert.equal(
    first.types.filter((t) => t.startsWith('MessageSent')),
    ['MessageSent:EMAIL'],
  );
  assert.ok(ctx.smtp.mails.some((m) => JSON.stringify(m.to).includes(byOrganization.person.email)));
  assert.not.ok(whatsAppTo.includes(byOrganization.person.phone.slice(1)), 'the phone waits for the e-mail to fail');

  const own = await collectionTo(ctx, { channelOrder: ['WHATSAPP'] });
  assert.equal(own.recipient.channelOrder, ['WHATSAPP']);
  const second = await invitation(ctx, own.collectionId, (types) => types.includes('MessageSent:WHATSAPP'));
  assert.equal(second.events[0]!.data.channels, ['WHATSAPP', 'EMAIL', 'SMS']);
  assert.not.ok(
    ctx.smtp.mails.some((m) => JSON.stringify(m.to).includes(own.person.email)),
    'no e-mail beside the WhatsApp message',
  );

  const refused = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria', document: '11.222.333/0001-81' },
      items: [{ key: 'c', kind: 'CUSTOM', title: 'C' }],
      recipients: [{ name: 'X', email: 'x@example.com', channelOrder: ['POMBO'] }],
      send: false,
    },
  });
  assert.equal([refused.status, refused.body.code, refused.body.message], [400, 400, MessagingMessages.invalidChannelOrder]);
  assert.is((await settings(ctx, { channelOrder: null })).status, 200);
});

test("WhatsApp's signed `failed` status after Meta took the message: the trail shows the loss, then the SMS that took over", async (ctx) => {
  const { collectionId, person } = await collectionTo(ctx, {}, 'WHATSAPP');
  const { messageId } = await invitation(ctx, collectionId, (types) => types.includes('MessageSent:WHATSAPP'));
  await eventually(async () => (await trailOf(ctx, collectionId)).some((e) => e.action === 'RECIPIENT_NOTIFIED'), { what: 'RECIPIENT_NOTIFIED on WhatsApp' });
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
              metadata: { display_phone_number: '5511300000000', phone_number_id: PHONE_NUMBER_ID },
              statuses: [
                {
                  id: `wamid.${messageId}`,
                  status: 'failed',
                  timestamp: '1795435200',
                  recipient_id: person.phone.slice(1),
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
  const reply = await fetch(`${ctx.app.url}/callbacks/whatsapp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsAppSignature(META_SECRET, raw) },
    body: raw,
  });
  assert.is(reply.status, 200);
  await eventually(async () => smsTo.includes(person.phone), { what: 'the SMS that takes over' });
  const trail = await eventually(
    async () => {
      const entries = await trailOf(ctx, collectionId);
      const sms = entries.find((e) => e.action === 'RECIPIENT_NOTIFIED' && e.payload.channel === 'SMS');
      return sms ? entries : null;
    },
    { timeoutMs: 20_000, what: 'the SMS send in the trail' },
  );
  const messages = trail.filter((e) => e.payload.messageId === messageId).map((e) => `${e.action}:${String(e.payload.channel)}`);
  assert.equal(messages, ['RECIPIENT_NOTIFIED:WHATSAPP', 'RECIPIENT_MESSAGE_FAILED:WHATSAPP', 'RECIPIENT_NOTIFIED:SMS']);
  const lost = trail.find((e) => e.action === 'RECIPIENT_MESSAGE_FAILED')!;
  assert.equal(lost.payload.next, 'SMS');
  assert.match(String(lost.payload.error), /131026/);
});

test.run();

import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { queueMessage } from '../../application/messaging/commands.ts';
import { whatsAppSignature } from '../../application/messaging/whatsapp-status-commands.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { findMessage } from '../../projections/messaging/queries.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const SECRET = 'meta-app-secret';
const PHONE_NUMBER_ID = '1234567890';
const test = suite('messaging: WhatsApp Cloud API callbacks (signed over the raw body): templates, the 24-hour window, sent, delivered, read and failed');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
let hooks: Receiver;

const GRAPH = 'https://graph.example.test/v21.0';
/** What the service posted to Meta, by our message id (biz_opaque_callback_data). */
const posted = new Map<string, Record<string, unknown>>();

test.before(async () => {
  // Meta's send endpoint (nock): it answers each message with a wamid of its own.
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  nock(GRAPH)
    .persist()
    .post(`/${PHONE_NUMBER_ID}/messages`)
    .reply(200, (_uri, body) => {
      const sent = body as Record<string, unknown> & { biz_opaque_callback_data: string; to: string };
      posted.set(sent.biz_opaque_callback_data, sent);
      return { messaging_product: 'whatsapp', contacts: [{ input: sent.to, wa_id: sent.to }], messages: [{ id: `wamid.${sent.biz_opaque_callback_data}` }] };
    });
  hooks = await startReceiver();
  app = await startTestApp({
    WHATSAPP_PROVIDER: 'cloud-api',
    WHATSAPP_API_URL: GRAPH,
    WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    WHATSAPP_TOKEN: 'token-abc',
    WHATSAPP_APP_SECRET: SECRET,
    WHATSAPP_VERIFY_TOKEN: 'verifica-isto',
  });
  tenant = await provisionTenant(app, { name: 'Banco Exemplo' });
  other = await provisionTenant(app, { name: 'Outro Banco' });
  const reply = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: `${hooks.url}/hooks`, events: ['collection.message.sent', 'collection.message.failed'] } });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
});
test.after(async () => {
  await app?.stop();
  await hooks?.close();
  nock.cleanAll();
  nock.enableNetConnect();
});

const statusOf = async (messageId: string) => (await app.app.db('messaging_messages').where({ id: messageId }).first('status'))?.status;
const typesOf = async (messageId: string) => (await app.app.store.readStream(messageStream(messageId))).map((e) => e.type);

/** A callback as Meta sends it (`entry[].changes[].value` of the `messages` field): compact JSON with a trailing space, so the signed bytes are exactly these. */
const callbackOf = (value: Record<string, unknown>, phoneNumberId = PHONE_NUMBER_ID) =>
  JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '5511300000000', phone_number_id: phoneNumberId }, ...value } }] }],
  }).replace(/\}$/, ' }');

interface StatusFields {
  messageId: string;
  status: string;
  wamid?: string;
  recipient?: string;
  errors?: unknown[];
  phoneNumberId?: string;
}
const statusCallback = ({ messageId, status, wamid = `wamid.${messageId}`, recipient = '5511987654321', errors, phoneNumberId }: StatusFields) =>
  callbackOf({ statuses: [{ id: wamid, status, timestamp: '1795435200', recipient_id: recipient, biz_opaque_callback_data: messageId, ...(errors ? { errors } : {}) }] }, phoneNumberId);

const post = (raw: string, signature: string | null, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/callbacks/whatsapp`, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}), ...headers }, body: raw });
const signedPost = async (raw: string) => {
  const reply = await post(raw, whatsAppSignature(SECRET, raw));
  assert.is(reply.status, 200);
  return ((await reply.json()) as { recorded: number }).recorded;
};

async function sentWhatsApp(key: string, phone = '+5511987654321', organizationId = tenant.organizationId): Promise<string> {
  const { messageId } = await queueMessage(app.app, {
    organizationId,
    dedupeKey: key,
    template: 'COLLECTION_INVITE',
    channels: ['WHATSAPP'],
    to: { name: 'Ana', email: null, phone },
    correlation: { collectionId: 'a'.repeat(24), recipientId: 'b'.repeat(24) },
    content: { link: 'https://app.example/c/abc', subjectName: 'Padaria', organizationName: 'Banco Exemplo', operatorMessage: null, pendingItems: [], expiresAt: null },
  });
  await eventually(async () => (await statusOf(messageId)) === 'SENT', { timeoutMs: 20_000, what: 'the Cloud API took it' });
  return messageId;
}

test('GET subscription check: the challenge back with the right verify token and mode, 403 otherwise', async () => {
  const ok = await fetch(`${app.url}/callbacks/whatsapp?hub.mode=subscribe&hub.verify_token=verifica-isto&hub.challenge=1158201444`);
  assert.equal([ok.status, await ok.text()], [200, '1158201444']);
  const wrong = await fetch(`${app.url}/callbacks/whatsapp?hub.mode=subscribe&hub.verify_token=outro&hub.challenge=1`);
  assert.equal([wrong.status, (await wrong.json()).message], [403, MessagingMessages.badVerifyToken]);
  const mode = await fetch(`${app.url}/callbacks/whatsapp?hub.mode=unsubscribe&hub.verify_token=verifica-isto&hub.challenge=1`);
  assert.is(mode.status, 403);
});

test('a business-initiated message goes as its template; once the person writes (inbound `messages`), the next goes as free text', async () => {
  const first = await sentWhatsApp('window:1', '+5511988887777');
  assert.equal(posted.get(first)!.type, 'template');
  assert.equal((posted.get(first)!.template as { name: string }).name, 'convite_envio_documentos');
  // Meta's inbound message: `from` is the wa_id, here without the ninth digit as many Brazilian mobiles are.
  const inbound = callbackOf({
    contacts: [{ profile: { name: 'Ana' }, wa_id: '551188887777' }],
    messages: [{ from: '551188887777', id: 'wamid.IN1', timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'oi' } }],
  });
  assert.is(await signedPost(inbound), 0, 'an inbound message records no message event');
  const second = await sentWhatsApp('window:2', '+5511988887777');
  assert.equal([posted.get(second)!.type, (posted.get(second)!.text as { body: string }).body.startsWith('Olá, Ana.')], ['text', true]);
  // Another number's window stays closed.
  const third = await sentWhatsApp('window:3', '+5511955554444');
  assert.is(posted.get(third)!.type, 'template');
});

test('a signed "delivered" makes the message DELIVERED once; a bad or missing signature changes nothing', async () => {
  const messageId = await sentWhatsApp('status:1');
  const raw = statusCallback({ messageId, status: 'delivered' });
  const forged = await post(raw, whatsAppSignature('another-secret', raw));
  assert.equal([forged.status, (await forged.json()).message], [401, MessagingMessages.badSignature]);
  assert.is((await post(raw, null)).status, 401);
  // The signature covers the bytes: the same JSON re-serialized (space removed) no longer matches.
  assert.is((await post(JSON.stringify(JSON.parse(raw)), whatsAppSignature(SECRET, raw))).status, 401);
  assert.not.ok((await typesOf(messageId)).includes('MessageDelivered'));

  assert.is(await signedPost(raw), 1);
  assert.is(await signedPost(raw), 0, 'a repeated callback records nothing');
  const delivered = (await app.app.store.readStream(messageStream(messageId))).find((e) => e.type === 'MessageDelivered')!;
  assert.equal([delivered.data.channel, delivered.data.at], ['WHATSAPP', '2026-11-23T12:00:00.000Z'], "the provider's time");
  await eventually(async () => (await statusOf(messageId)) === 'DELIVERED', { timeoutMs: 20_000, what: 'the read model shows DELIVERED' });
});

test('"read" records MessageRead (and the delivery it implies); the status stays the contract\'s DELIVERED', async () => {
  const messageId = await sentWhatsApp('status:read');
  assert.is(await signedPost(statusCallback({ messageId, status: 'read' })), 2);
  assert.equal((await typesOf(messageId)).slice(-2), ['MessageDelivered', 'MessageRead']);
  assert.is(await signedPost(statusCallback({ messageId, status: 'delivered' })), 0, 'a late "delivered" adds nothing');
  await eventually(async () => (await findMessage(app.app.db, tenant.organizationId, messageId))?.readChannels.includes('WHATSAPP'), { what: 'read model' });
  assert.is(await statusOf(messageId), 'DELIVERED');
});

test('"failed" makes a collection invitation FAILED with Meta\'s reason and sends collection.message.failed', async () => {
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Bruno Lima', phone: '+5511987654321' }],
      notificationChannel: 'WHATSAPP',
      expiryDays: 10,
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.id as string;
  const row: { id: string } = await eventually(async () => app.app.db('messaging_messages').where({ collection_id: collectionId, status: 'SENT' }).first('id'), { what: 'the invitation SENT' });
  const messageId = row.id;
  assert.is(posted.get(messageId)!.type, 'template');
  const errors = [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } }];
  assert.is(await signedPost(statusCallback({ messageId, status: 'failed', errors })), 2);
  const [lost, failed] = (await app.app.store.readStream(messageStream(messageId))).slice(-2);
  assert.equal(
    [lost!.type, lost!.data.channel, lost!.data.next, lost!.data.error, failed!.type],
    ['MessageChannelFailed', 'WHATSAPP', null, 'WhatsApp 131026: Message undeliverable - Message Undeliverable.', 'MessageFailed'],
  );
  assert.is(await signedPost(statusCallback({ messageId, status: 'failed', errors })), 0, 'a repeat records nothing');
  const hook = await eventually(async () => hooks.json().find((body) => body.event === 'collection.message.failed' && body.data.collectionId === collectionId), { what: 'collection.message.failed' });
  assert.equal([hook.data.channels, hook.data.status, hook.data.error], [['WHATSAPP'], 'FAILED', 'WhatsApp 131026: Message undeliverable - Message Undeliverable.']);
  await eventually(async () => (await statusOf(messageId)) === 'FAILED', { what: 'the read model shows FAILED' });
});

test('a status that does not match its message (another number, another wamid, another sender number, an unknown id) touches nothing', async () => {
  const mine = await sentWhatsApp('iso:mine');
  const theirs = await sentWhatsApp('iso:theirs', '+5511933332222', other.organizationId);
  const before = await typesOf(theirs);
  for (const fields of [
    { messageId: theirs, status: 'failed' }, // org B's message named with org A's recipient number
    { messageId: theirs, status: 'delivered', recipient: '5511933332222', wamid: `wamid.${mine}` }, // org A's wamid
    { messageId: theirs, status: 'read', recipient: '5511933332222', phoneNumberId: '999' }, // another sender number of the Meta app
    { messageId: 'c'.repeat(24), status: 'delivered' },
    { messageId: 'not-ours', status: 'read' },
  ]) {
    assert.is(await signedPost(statusCallback(fields)), 0, JSON.stringify(fields));
  }
  assert.equal(await typesOf(theirs), before);
  assert.is(await statusOf(mine), 'SENT');
  assert.is(await statusOf(theirs), 'SENT');
  assert.is(await signedPost(statusCallback({ messageId: theirs, status: 'delivered', recipient: '5511933332222' })), 1, 'the matching status is recorded');
});

test('the body is bounded and its signature checked before it is parsed', async () => {
  const huge = `{"entry":"${'x'.repeat(3 * 1024 * 1024)}"}`;
  const tooLarge = await post(huge, whatsAppSignature(SECRET, huge));
  assert.equal([tooLarge.status, (await tooLarge.json()).message], [413, Messages.bodyTooLarge]);
  const unsignedGarbage = await post('{not json', null);
  assert.is(unsignedGarbage.status, 401, 'an unsigned body is refused for its signature, not parsed');
  const signedGarbage = await post('{not json', whatsAppSignature(SECRET, '{not json'));
  assert.equal([signedGarbage.status, (await signedGarbage.json()).message], [400, Messages.malformedJson]);
});

test.run();

import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { queueMessage } from '../../application/messaging/queue.ts';
import { whatsAppSignature } from '../../application/messaging/whatsapp-status.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

const SECRET = 'meta-app-secret';
const test = suite('messaging: WhatsApp Cloud API status callback (signed over the raw body) makes a message DELIVERED');
let app: TestApp;
let tenant: TestTenant;

const GRAPH = 'https://graph.example.test/v21.0';

test.before(async () => {
  // Meta's send endpoint (nock): a message is SENT only when a real channel took it.
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
  nock(GRAPH).persist().post('/1234567890/messages').reply(200, { messaging_product: 'whatsapp', contacts: [{ input: '5511987654321', wa_id: '5511987654321' }], messages: [{ id: 'wamid.HBgN' }] });
  app = await startTestApp({
    WHATSAPP_PROVIDER: 'cloud-api', WHATSAPP_API_URL: GRAPH, WHATSAPP_PHONE_NUMBER_ID: '1234567890', WHATSAPP_TOKEN: 'token-abc', WHATSAPP_APP_SECRET: SECRET, WHATSAPP_VERIFY_TOKEN: 'verifica-isto',
  });
  tenant = await provisionTenant(app);
});
test.after(async () => {
  await app?.stop();
  nock.cleanAll();
  nock.enableNetConnect();
});

const statusOf = async (messageId: string) => (await app.app.db('messaging_messages').where({ id: messageId }).first('status'))?.status;

/** A callback as Meta sends it: compact JSON with escaped non-ASCII, so the signed bytes are exactly these. */
const callback = (messageId: string, status: string) =>
  JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: 'WABA', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: '123' }, statuses: [
      { id: 'wamid.HBgN', status, timestamp: '1795435200', recipient_id: '5511987654321', biz_opaque_callback_data: messageId },
    ] } }] }],
  }).replace(/\}$/, ' }');

const post = (raw: string, signature: string | null) =>
  fetch(`${app.url}/callbacks/whatsapp`, { method: 'POST', headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) }, body: raw });

async function sentWhatsApp(key: string): Promise<string> {
  const { messageId } = await queueMessage(app.app, {
    organizationId: tenant.organizationId,
    dedupeKey: key,
    template: 'COLLECTION_INVITE',
    channels: ['WHATSAPP'],
    to: { name: 'Ana', email: null, phone: '+5511987654321' },
    correlation: { collectionId: 'a'.repeat(24), recipientId: 'b'.repeat(24) },
    content: { link: 'https://app.example/c/abc', subjectName: 'Padaria', organizationName: 'Banco Exemplo', operatorMessage: null, pendingItems: [], expiresAt: null },
  });
  await eventually(async () => (await statusOf(messageId)) === 'SENT', { timeoutMs: 20_000, what: 'the Cloud API took it' });
  return messageId;
}

test('GET subscription check: the challenge back with the right verify token, 403 otherwise', async () => {
  const ok = await fetch(`${app.url}/callbacks/whatsapp?hub.mode=subscribe&hub.verify_token=verifica-isto&hub.challenge=1158201444`);
  assert.equal([ok.status, await ok.text()], [200, '1158201444']);
  const wrong = await fetch(`${app.url}/callbacks/whatsapp?hub.mode=subscribe&hub.verify_token=outro&hub.challenge=1`);
  assert.equal([wrong.status, (await wrong.json()).message], [403, MessagingMessages.badVerifyToken]);
});

test('a signed "delivered" makes the message DELIVERED once; a bad or missing signature changes nothing', async () => {
  const messageId = await sentWhatsApp('status:1');
  const raw = callback(messageId, 'delivered');
  const forged = await post(raw, whatsAppSignature('another-secret', raw));
  assert.equal([forged.status, (await forged.json()).message], [401, MessagingMessages.badSignature]);
  assert.is((await post(raw, null)).status, 401);
  // The signature covers the bytes: the same JSON re-serialized (space removed) no longer matches.
  assert.is((await post(JSON.stringify(JSON.parse(raw)), whatsAppSignature(SECRET, raw))).status, 401);
  const stream = async () => (await app.app.store.readStream(messageStream(messageId))).map((e) => e.type);
  assert.not.ok((await stream()).includes('MessageDelivered'));

  const signed = await post(raw, whatsAppSignature(SECRET, raw));
  assert.equal([signed.status, await signed.json()], [200, { recorded: 1 }]);
  const again = await post(raw, whatsAppSignature(SECRET, raw));
  assert.equal(await again.json(), { recorded: 0 }, 'a repeated callback records nothing');
  assert.equal((await stream()).filter((t) => t === 'MessageDelivered').length, 1);
  const delivered = (await app.app.store.readStream(messageStream(messageId))).find((e) => e.type === 'MessageDelivered')!;
  assert.equal([delivered.data.channel, delivered.data.at], ['WHATSAPP', '2026-11-23T12:00:00.000Z'], "the provider's time");
  await eventually(async () => (await statusOf(messageId)) === 'DELIVERED', { timeoutMs: 20_000, what: 'the read model shows DELIVERED' });
});

test('"sent" and "failed" statuses and unknown messages are acknowledged and change nothing', async () => {
  const messageId = await sentWhatsApp('status:2');
  for (const [id, status] of [[messageId, 'sent'], [messageId, 'failed'], ['c'.repeat(24), 'delivered'], ['not-ours', 'read']]) {
    const raw = callback(id!, status!);
    assert.equal(await (await post(raw, whatsAppSignature(SECRET, raw))).json(), { recorded: 0 }, `${status} of ${id}`);
  }
  assert.is(await statusOf(messageId), 'SENT');
});

test.run();

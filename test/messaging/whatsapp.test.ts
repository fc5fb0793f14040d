import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CloudApiWhatsAppChannel } from '../../application/messaging/channels/whatsapp.ts';
import { ChannelError, type OutgoingMessage } from '../../application/messaging/channels/port.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';

const test = suite('messaging: WhatsApp Cloud API adapter (nock)');
const BASE = 'https://graph.example.test/v21.0';
const channel = new CloudApiWhatsAppChannel(BASE, '1234567890', 'token-abc', 2000);
const message: OutgoingMessage = {
  messageId: 'msg000000000000000000001',
  to: { name: 'Ana', email: null, phone: '+5511987654321' },
  rendered: { subject: 'Assunto', text: 'Olá, Ana.\n\nEnviar documentos: https://app.example/c/tok', html: '<p>x</p>' },
  short: 'Banco: envie em https://app.example/c/tok',
  addressee: null,
};

async function refusal(send: Promise<unknown>): Promise<ChannelError> {
  try {
    await send;
  } catch (error) {
    assert.instance(error, ChannelError);
    return error as ChannelError;
  }
  return assert.unreachable('expected the channel to refuse') as never;
}

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test('sends a text message with the bearer token to /{phone-number-id}/messages; the provider id comes back', async () => {
  nock(BASE, { reqheaders: { authorization: 'Bearer token-abc' } })
    .post('/1234567890/messages', {
      messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511987654321', type: 'text', text: { preview_url: true, body: message.rendered.text }, biz_opaque_callback_data: message.messageId,
    })
    .reply(200, { messaging_product: 'whatsapp', contacts: [{ input: '5511987654321', wa_id: '5511987654321' }], messages: [{ id: 'wamid.HBgN' }] });
  assert.equal(await channel.send(message), { providerMessageId: 'wamid.HBgN' });
  assert.ok(nock.isDone());
});

test("a 4xx is final and keeps the provider's text", async () => {
  nock(BASE)
    .post('/1234567890/messages')
    .reply(400, { error: { message: '(#131030) Recipient phone number not in allowed list', type: 'OAuthException', code: 131030, error_data: { details: 'Add recipient phone number to recipient list' } } });
  const error = await refusal(channel.send(message));
  assert.is(error.text, 'WhatsApp HTTP 400: (#131030) Recipient phone number not in allowed list (código 131030) - Add recipient phone number to recipient list');
  assert.ok(error.permanent);
});

test('429 and 5xx are worth another attempt', async () => {
  nock(BASE).post('/1234567890/messages').reply(429, { error: { message: 'Rate limit hit', code: 130429 } });
  nock(BASE).post('/1234567890/messages').reply(503, 'unavailable');
  const limited = await refusal(channel.send(message));
  assert.is(limited.permanent, false);
  assert.match(limited.text, /^WhatsApp HTTP 429: Rate limit hit/);
  const down = await refusal(channel.send(message));
  assert.is(down.permanent, false);
  assert.match(down.text, /^WhatsApp HTTP 503/);
});

test('no phone: refused at once without a call', async () => {
  const error = await refusal(channel.send({ ...message, to: { ...message.to, phone: null } }));
  assert.equal([error.text, error.permanent], [MessagingMessages.noPhone, true]);
});

test.run();

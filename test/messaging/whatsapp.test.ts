import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CloudApiWhatsAppChannel, type CloudApiSettings } from '../../application/messaging/channels/whatsapp.ts';
import { DEFAULT_WHATSAPP_TEMPLATES, whatsAppTemplatesFrom } from '../../application/messaging/channels/whatsapp-templates.ts';
import { ChannelError, type OutgoingMessage } from '../../application/messaging/channels/port.ts';
import { ConfigurationError } from '../../config/index.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';

const test = suite('messaging: WhatsApp Cloud API adapter (nock): templates outside the 24-hour window, text inside');
const BASE = 'https://graph.example.test/v21.0';
let windowOpen = false;
const settings: CloudApiSettings = { baseUrl: BASE, phoneNumberId: '1234567890', token: 'token-abc', timeoutMs: 2000, templates: DEFAULT_WHATSAPP_TEMPLATES, windowOpen: async () => windowOpen };
const channel = new CloudApiWhatsAppChannel(settings);
const message: OutgoingMessage = {
  messageId: 'msg000000000000000000001',
  to: { name: 'Ana', email: null, phone: '+5511987654321' },
  template: 'COLLECTION_INVITE',
  content: {
    link: 'https://app.example/c/tok',
    subjectName: 'Padaria Pão Quente Ltda',
    organizationName: 'Banco Exemplo',
    operatorMessage: null,
    pendingItems: ['Contrato social'],
    expiresAt: '2026-11-30T23:59:00.000Z',
  },
  rendered: { subject: 'Assunto', text: 'Olá, Ana.\n\nEnviar documentos: https://app.example/c/tok', html: '<p>x</p>' },
  short: 'Banco: envie em https://app.example/c/tok',
  addressee: null,
};
// Meta's answer to a message it took (Cloud API reference, "Messages": messaging_product, contacts, messages[].id).
const TOOK = { messaging_product: 'whatsapp', contacts: [{ input: '5511987654321', wa_id: '5511987654321' }], messages: [{ id: 'wamid.HBgN' }] };
const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511987654321', biz_opaque_callback_data: message.messageId };

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
test.before.each(() => {
  windowOpen = false;
});
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test('outside the window an invitation goes as its approved template: name, language and body parameters in order', async () => {
  nock(BASE, { reqheaders: { authorization: 'Bearer token-abc' } })
    .post('/1234567890/messages', {
      ...envelope,
      type: 'template',
      template: {
        name: 'convite_envio_documentos',
        language: { code: 'pt_BR' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: 'Banco Exemplo' },
              { type: 'text', text: 'Padaria Pão Quente Ltda' },
              { type: 'text', text: 'https://app.example/c/tok' },
              { type: 'text', text: '30/11/2026 às 20:59 (horário de Brasília)' },
            ],
          },
        ],
      },
    })
    .reply(200, TOOK);
  assert.equal(await channel.send(message), { providerMessageId: 'wamid.HBgN' });
  assert.ok(nock.isDone());
});

test("a signature code goes as an authentication template: the code in the body and in the copy-code button (Meta's shape)", async () => {
  nock(BASE)
    .post('/1234567890/messages', {
      ...envelope,
      type: 'template',
      template: {
        name: 'codigo_assinatura',
        language: { code: 'pt_BR' },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: '482913' }] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '482913' }] },
        ],
      },
    })
    .reply(200, TOOK);
  await channel.send({ ...message, template: 'SIGNATURE_CODE', content: { ...message.content, code: '482913' } });
  assert.ok(nock.isDone());
});

test('an offer names product, amount in reais and term; a missing value and line breaks never reach Meta (it refuses both)', async () => {
  let sent: { template: { components: Array<{ parameters: Array<{ text: string }> }> } } | undefined;
  nock(BASE)
    .post('/1234567890/messages', (body) => ((sent = body), true))
    .reply(200, TOOK);
  await channel.send({
    ...message,
    template: 'OFFER_LINK',
    to: { ...message.to, name: 'Ana\nSouza' },
    content: { ...message.content, expiresAt: null, offer: { productName: 'Capital de giro', maxAmountCents: 5_000_000, maxTermMonths: 24 } },
  });
  assert.equal(
    sent!.template.components[0]!.parameters.map((p) => p.text),
    ['Ana Souza', 'Banco Exemplo', 'Capital de giro', 'R$ 50.000,00', '24', 'https://app.example/c/tok', '-'],
  );
});

test('inside the window the whole text goes as free text', async () => {
  windowOpen = true;
  nock(BASE)
    .post('/1234567890/messages', { ...envelope, type: 'text', text: { preview_url: true, body: message.rendered.text } })
    .reply(200, TOOK);
  assert.equal(await channel.send(message), { providerMessageId: 'wamid.HBgN' });
  assert.ok(nock.isDone());
});

test('a text Meta refuses for the window (131047) goes again at once as the template', async () => {
  windowOpen = true;
  nock(BASE)
    .post('/1234567890/messages', (body) => body.type === 'text')
    .reply(400, {
      error: {
        message: '(#131047) Re-engagement message',
        type: 'OAuthException',
        code: 131047,
        error_data: { messaging_product: 'whatsapp', details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.' },
      },
    });
  nock(BASE)
    .post('/1234567890/messages', (body) => body.type === 'template' && body.template.name === 'convite_envio_documentos')
    .reply(200, TOOK);
  assert.equal(await channel.send(message), { providerMessageId: 'wamid.HBgN' });
  assert.ok(nock.isDone());
});

test("a 4xx is final and keeps the provider's text", async () => {
  nock(BASE)
    .post('/1234567890/messages')
    .reply(400, {
      error: {
        message: '(#132001) Template name does not exist in the translation',
        type: 'OAuthException',
        code: 132001,
        error_data: { messaging_product: 'whatsapp', details: 'template name (convite_envio_documentos) does not exist in pt_BR' },
      },
    });
  const error = await refusal(channel.send(message));
  assert.is(error.text, 'WhatsApp HTTP 400: (#132001) Template name does not exist in the translation (código 132001) - template name (convite_envio_documentos) does not exist in pt_BR');
  assert.ok(error.permanent);
});

test('429 and 5xx are worth another attempt', async () => {
  nock(BASE)
    .post('/1234567890/messages')
    .reply(429, { error: { message: 'Rate limit hit', code: 130429 } });
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

test('WHATSAPP_TEMPLATES replaces the kinds it names; a mistake is a ConfigurationError naming the setting', async () => {
  const templates = whatsAppTemplatesFrom(JSON.stringify({ COLLECTION_INVITE: { name: 'convite_v2', language: 'pt_BR', body: ['recipientName', 'link'] } }));
  assert.equal(templates.COLLECTION_INVITE, { name: 'convite_v2', language: 'pt_BR', body: ['recipientName', 'link'] });
  assert.equal(templates.OFFER_LINK, DEFAULT_WHATSAPP_TEMPLATES.OFFER_LINK);
  nock(BASE)
    .post('/1234567890/messages', (body) => body.template.name === 'convite_v2' && body.template.components[0].parameters.length === 2)
    .reply(200, TOOK);
  await new CloudApiWhatsAppChannel({ ...settings, templates }).send(message);
  assert.ok(nock.isDone());
  for (const [json, says] of [
    ['{', /not JSON/],
    ['{"INVITE": {}}', /unknown message kind INVITE/],
    ['{"OFFER_LINK": {"name": "Oferta Crédito", "language": "pt_BR", "body": []}}', /OFFER_LINK\.name/],
    ['{"OFFER_LINK": {"name": "oferta", "language": "portuguese", "body": []}}', /OFFER_LINK\.language/],
    ['{"OFFER_LINK": {"name": "oferta", "language": "pt_BR", "body": ["cpf"]}}', /OFFER_LINK\.body/],
  ] as const) {
    assert.throws(
      () => whatsAppTemplatesFrom(json),
      (error: Error) => error instanceof ConfigurationError && says.test(error.message),
      json,
    );
  }
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { channelsFor, messageFor } from '../../application/collection/notifications/messages.ts';
import { assess, create, definition, history, stateOf, submit } from '../collection/fixtures.ts';

const test = suite('collection notifications: which message goes to whom, on which channels');
const config = { MESSAGE_CHANNEL_ORDER: 'whatsapp,sms,email', SMS_PROVIDER: 'none' } as const;
const request = { template: 'COLLECTION_INVITE', key: '1', link: 'https://app.example/c/t', organizationName: 'Banco Exemplo', organizationOrder: null } as const;

test('channels: the template channel, less those the person has no address for; BOTH is one at a time in the order', () => {
  const both = { ...stateOf(history(create())).recipients[0]!, phone: '+5511999998888' };
  assert.equal(channelsFor(config, 'BOTH', both, null), { channels: ['WHATSAPP', 'EMAIL'], fallback: { WHATSAPP: 'EMAIL' } });
  assert.equal(channelsFor(config, 'BOTH', { ...both, phone: null }, null).channels, ['EMAIL']);
  assert.equal(channelsFor(config, 'BOTH', { ...both, email: null }, null).channels, ['WHATSAPP']);
  assert.equal(channelsFor(config, 'WHATSAPP', { ...both, phone: null }, null).channels, ['WHATSAPP'], 'nothing reachable: kept, so the failure is visible');
  assert.equal(channelsFor(config, 'NONE', both, null).channels, []);
});

test("channels: the recipient's order over the organization's over the deployment's; each ranks only what the one before leaves out", () => {
  const both = { ...stateOf(history(create())).recipients[0]!, phone: '+5511999998888' };
  const sms = { ...config, SMS_PROVIDER: 'twilio' } as const;
  assert.equal(channelsFor(sms, 'BOTH', both, ['EMAIL']), { channels: ['EMAIL', 'WHATSAPP', 'SMS'], fallback: { EMAIL: 'WHATSAPP', WHATSAPP: 'SMS' } });
  assert.equal(channelsFor(sms, 'BOTH', { ...both, channelOrder: ['SMS'] }, ['EMAIL']), { channels: ['SMS', 'EMAIL', 'WHATSAPP'], fallback: { SMS: 'EMAIL', EMAIL: 'WHATSAPP' } });
  assert.equal(channelsFor(sms, 'WHATSAPP', both, ['EMAIL', 'SMS']), { channels: ['SMS', 'WHATSAPP'], fallback: { SMS: 'WHATSAPP' } }, 'the route still decides which channels');
});

test('with an SMS provider the phone is WhatsApp then SMS (MESSAGE_CHANNEL_ORDER), one falling back to the other; BOTH adds the e-mail after them', () => {
  const both = { ...stateOf(history(create())).recipients[0]!, phone: '+5511999998888' };
  const sms = { ...config, SMS_PROVIDER: 'twilio' } as const;
  assert.equal(channelsFor(sms, 'WHATSAPP', both, null), { channels: ['WHATSAPP', 'SMS'], fallback: { WHATSAPP: 'SMS' } });
  assert.equal(channelsFor(sms, 'BOTH', both, null), { channels: ['WHATSAPP', 'SMS', 'EMAIL'], fallback: { WHATSAPP: 'SMS', SMS: 'EMAIL' } });
  assert.equal(channelsFor({ ...sms, MESSAGE_CHANNEL_ORDER: 'sms,email' }, 'WHATSAPP', both, null), { channels: ['SMS', 'WHATSAPP'], fallback: { SMS: 'WHATSAPP' } }, 'a channel left out ranks last');
  assert.equal(channelsFor(sms, 'EMAIL', both, null), { channels: ['EMAIL'] });
  assert.equal(channelsFor(sms, 'WHATSAPP', { ...both, phone: null }, null), { channels: ['WHATSAPP'] }, 'nothing reachable: the first stays, so the failure is visible');
});

test('an invite carries the pending items of that recipient only, the deadline, the operator message, and a key per link version', () => {
  const state = stateOf(history(create()));
  const [first] = state.recipients;
  const input = messageFor(config, state, first!, request)!;
  assert.is(input.dedupeKey, `invite:${state.collectionId}:${first!.recipientId}:1`);
  assert.equal(input.channels, ['EMAIL']);
  assert.equal(input.to, { name: first!.name, email: first!.email, phone: null });
  assert.equal(input.correlation, { collectionId: state.collectionId, recipientId: first!.recipientId });
  assert.equal(input.content, {
    link: 'https://app.example/c/t',
    subjectName: 'Empresa Exemplo',
    organizationName: 'Banco Exemplo',
    operatorMessage: 'Por favor, envie os documentos.',
    pendingItems: ['Documento i1'],
    expiresAt: state.expiresAt,
  });
});

test('an item already sent is no longer pending; NONE queues nothing; a completion notice has no link list or deadline', () => {
  const events = history(create(), submit('i1', 'p1', 'd1'), assess('i1', 'd1', 'VALIDO'));
  const state = stateOf(events);
  assert.equal(messageFor(config, state, state.recipients[0]!, request)!.content.pendingItems, []);
  const silent = stateOf(history(create(true, definition({ channel: 'NONE' }))));
  assert.is(messageFor(config, silent, silent.recipients[0]!, request), null);
  const done = messageFor(config, state, state.recipients[0]!, { ...request, template: 'COLLECTION_COMPLETED', link: null })!;
  assert.equal([done.dedupeKey.startsWith('completed:'), done.content.pendingItems, done.content.expiresAt, done.content.link], [true, [], null, null]);
});

test.run();

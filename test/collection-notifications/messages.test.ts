import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { channelsFor, messageFor } from '../../application/collection/notifications/messages.ts';
import { assess, create, definition, history, stateOf, submit } from '../collection/fixtures.ts';

const test = suite('collection notifications: which message goes to whom, on which channels');
const request = { template: 'COLLECTION_INVITE', key: '1', link: 'https://app.example/c/t', organizationName: 'Banco Exemplo' } as const;

test('channels: the template channel, less those the person has no address for while another remains', () => {
  const both = { ...stateOf(history(create())).recipients[0]!, phone: '+5511999998888' };
  assert.equal(channelsFor('BOTH', both), ['EMAIL', 'WHATSAPP']);
  assert.equal(channelsFor('BOTH', { ...both, phone: null }), ['EMAIL']);
  assert.equal(channelsFor('BOTH', { ...both, email: null }), ['WHATSAPP']);
  assert.equal(channelsFor('WHATSAPP', { ...both, phone: null }), ['WHATSAPP'], 'nothing reachable: kept, so the failure is visible');
  assert.equal(channelsFor('NONE', both), []);
});

test('an invite carries the pending items of that recipient only, the deadline, the operator message, and a key per link version', () => {
  const state = stateOf(history(create()));
  const [first] = state.recipients;
  const input = messageFor(state, first!, request)!;
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
  assert.equal(messageFor(state, state.recipients[0]!, request)!.content.pendingItems, []);
  const silent = stateOf(history(create(true, definition({ channel: 'NONE' }))));
  assert.is(messageFor(silent, silent.recipients[0]!, request), null);
  const done = messageFor(state, state.recipients[0]!, { ...request, template: 'COLLECTION_COMPLETED', link: null })!;
  assert.equal([done.dedupeKey.startsWith('completed:'), done.content.pendingItems, done.content.expiresAt, done.content.link], [true, [], null, null]);
});

test.run();

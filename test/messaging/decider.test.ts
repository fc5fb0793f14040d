import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { messagingDecider, type MessagingCommand, type MessagingEvent } from '../../domain/messaging/decider.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { renderMessage } from '../../domain/messaging/templates.ts';
import type { MessageContent } from '../../domain/messaging/content.ts';
import type { MessageChannel } from '../../domain/messaging/events.ts';
import { given } from '../support/decider.ts';
import { routeEvent } from '../../domain/webhook/routing.ts';

const test = suite('messaging decider and texts');
const AT = '2026-11-23T12:00:00.000Z';
const LATER = '2026-11-23T12:05:00.000Z';
const CONTENT: MessageContent = {
  link: 'https://app.example/c/tok',
  subjectName: 'Padaria Pão Quente Ltda',
  organizationName: 'Banco Exemplo',
  operatorMessage: 'Precisamos dos documentos até sexta.',
  pendingItems: ['Contrato social', 'Comprovante de endereço'],
  expiresAt: '2026-11-30T23:59:00.000Z',
};
const queue: Extract<MessagingCommand, { type: 'QueueMessage' }> = {
  type: 'QueueMessage',
  organizationId: 'org000000000000000000001',
  messageId: 'msg000000000000000000001',
  dedupeKey: 'invite:c1:r1:1',
  template: 'COLLECTION_INVITE',
  channels: ['EMAIL', 'WHATSAPP'],
  to: { name: 'Ana Souza', email: 'ana@example.com', phone: '+5511987654321' },
  correlation: { collectionId: 'col000000000000000000001', recipientId: 'rec000000000000000000001' },
  content: CONTENT,
  at: AT,
};
const { type: _, ...queuedData } = queue;
const queued: MessagingEvent = { type: 'MessageQueued', data: queuedData };
const base = { organizationId: queue.organizationId, messageId: queue.messageId, template: queue.template, channels: queue.channels, to: queue.to, correlation: queue.correlation, at: LATER };
const sentEmail: MessagingEvent = { type: 'MessageSent', data: { ...base, channel: 'EMAIL', providerMessageId: '<x@y>', provenance: { provider: 'smtp', sandbox: false } } };

test('queue: MessageQueued with everything the texts need; queuing again decides nothing', () => {
  given(messagingDecider).when(queue).then([queued]);
  given(messagingDecider, [queued]).when(queue).then([]);
});

test('queue refuses no channel and a repeated channel', () => {
  given(messagingDecider)
    .when({ ...queue, channels: [] })
    .thenError('invalid', MessagingMessages.noChannel);
  given(messagingDecider)
    .when({ ...queue, channels: ['EMAIL', 'EMAIL'] })
    .thenError('invalid', MessagingMessages.duplicateChannel);
});

test('sent once per channel; each event repeats whom it was for', () => {
  const send = { type: 'RecordSent', channel: 'EMAIL', providerMessageId: '<x@y>', provider: 'smtp', at: LATER } as const;
  given(messagingDecider, [queued]).when(send).then([sentEmail]);
  given(messagingDecider, [queued, sentEmail]).when(send).then([]);
  given(messagingDecider).when(send).thenError('not_found', MessagingMessages.notQueued);
  const emailOnly: MessagingEvent = { type: 'MessageQueued', data: { ...queuedData, channels: ['EMAIL'] } };
  given(messagingDecider, [emailOnly])
    .when({ ...send, channel: 'WHATSAPP' })
    .thenError('invalid', MessagingMessages.channelNotInMessage);
});

test('delivered moves the status to DELIVERED and stays there when another channel leaves', () => {
  const delivered: MessagingEvent = { type: 'MessageDelivered', data: { ...base, channel: 'EMAIL' } };
  given(messagingDecider, [queued, sentEmail]).when({ type: 'RecordDelivered', channel: 'EMAIL', at: LATER }).then([delivered]);
  const sentChat: MessagingEvent = { type: 'MessageSent', data: { ...base, channel: 'WHATSAPP', providerMessageId: null } };
  assert.is(given(messagingDecider, [queued, sentEmail, delivered, sentChat]).state.status, 'DELIVERED');
});

test('failed only when nothing left: once, and never after a channel sent it', () => {
  const fail = { type: 'RecordFailed', error: '550 mailbox unavailable', at: LATER } as const;
  const failed: MessagingEvent = { type: 'MessageFailed', data: { ...base, error: '550 mailbox unavailable' } };
  given(messagingDecider, [queued]).when(fail).then([failed]);
  given(messagingDecider, [queued, failed]).when(fail).then([]);
  given(messagingDecider, [queued, sentEmail]).when(fail).then([]);
  assert.is(given(messagingDecider, [queued, failed]).state.status, 'FAILED');
});

test('withdraw: a message still waiting ends FAILED with the reason, without MessageFailed; one that left is kept', () => {
  const withdraw = { type: 'Withdraw', reason: 'encerrada', at: LATER } as const;
  const withdrawn: MessagingEvent = { type: 'MessageWithdrawn', data: { ...base, reason: 'encerrada' } };
  given(messagingDecider, [queued]).when(withdraw).then([withdrawn]);
  assert.is(given(messagingDecider, [queued, withdrawn]).state.status, 'FAILED');
  given(messagingDecider, [queued, withdrawn]).when(withdraw).then([]);
  given(messagingDecider, [queued, sentEmail]).when(withdraw).then([]);
  given(messagingDecider, [queued, withdrawn]).when({ type: 'RecordFailed', error: 'x', at: LATER }).then([]);
});

test('invite texts: subject, greeting, the operator message, pending items, link and deadline in Brasília time; HTML escaped', () => {
  const invite = renderMessage('COLLECTION_INVITE', 'Ana <Souza>', CONTENT);
  assert.is(invite.subject, 'Banco Exemplo: envio de documentos de Padaria Pão Quente Ltda');
  assert.match(invite.text, /^Olá, Ana <Souza>\./);
  assert.match(invite.text, /Mensagem de Banco Exemplo: "Precisamos dos documentos até sexta\."/);
  assert.match(invite.text, /Itens pendentes:\n- Contrato social\n- Comprovante de endereço/);
  assert.match(invite.text, /Enviar documentos: https:\/\/app\.example\/c\/tok/);
  assert.match(invite.text, /Prazo: até 30\/11\/2026 às 20:59 \(horário de Brasília\)/);
  assert.match(invite.html, /<a href="https:\/\/app\.example\/c\/tok"/);
  assert.match(invite.html, /Olá, Ana &#60;Souza&#62;\./);
  assert.match(invite.html, /<li>Contrato social<\/li>/);
});

test('reminder and completed texts; a message without link, deadline or operator message leaves those lines out', () => {
  const bare = { ...CONTENT, link: null, expiresAt: null, operatorMessage: null, pendingItems: [] };
  const reminder = renderMessage('COLLECTION_REMINDER', 'Ana', CONTENT);
  assert.is(reminder.subject, 'Lembrete: documentos pendentes de Padaria Pão Quente Ltda para Banco Exemplo');
  assert.match(reminder.text, /Ainda faltam documentos/);
  const done = renderMessage('COLLECTION_COMPLETED', 'Ana', bare);
  assert.is(done.subject, 'Banco Exemplo: documentos de Padaria Pão Quente Ltda recebidos');
  assert.match(done.text, /foi concluída/);
  for (const text of [done.text, renderMessage('COLLECTION_REMINDER', 'Ana', bare).text]) {
    assert.not.match(text, /Prazo|Enviar documentos|Mensagem de|Itens pendentes/);
  }
});

test("a user's financial statements notice: the periods as printed, the files, or why nothing was read; a failed one sends no collection.message.failed", () => {
  const financial = { reportId: 'rep000000000000000000001', document: '11.222.333/0001-81', files: ['balanco.pdf', 'dre.pdf'], periods: ['2024-12-31', '2023-12-31'], reason: null };
  const content = { ...CONTENT, link: null, expiresAt: null, operatorMessage: null, pendingItems: [], financial };
  const read = renderMessage('FINANCIAL_STATEMENTS_EXTRACTED', 'Bruno', content);
  assert.is(read.subject, 'Demonstrações financeiras de Padaria Pão Quente Ltda processadas');
  assert.match(read.text, /Arquivos enviados ao relatório rep000000000000000000001 \(11\.222\.333\/0001-81\):\n- balanco\.pdf\n- dre\.pdf/);
  assert.match(read.text, /Períodos lidos:\n- 31\/12\/2024\n- 31\/12\/2023/);
  const failed = renderMessage('FINANCIAL_STATEMENTS_FAILED', 'Bruno', { ...content, financial: { ...financial, periods: [], reason: 'Nenhum balanço <lido>.' } });
  assert.is(failed.subject, 'Não foi possível ler as demonstrações financeiras de Padaria Pão Quente Ltda');
  assert.match(failed.text, /não puderam ser lidas: Nenhum balanço <lido>\./);
  assert.match(failed.html, /Nenhum balanço &#60;lido&#62;/);

  const base = { to: queue.to, template: 'FINANCIAL_STATEMENTS_FAILED', channels: ['EMAIL'], error: '550' };
  assert.is(routeEvent('MessageFailed', { ...base, correlation: { userId: 'u', reportId: 'r', batchId: 'b' } }), null);
  assert.is(routeEvent('MessageFailed', { ...base, correlation: queue.correlation })!.publicName, 'collection.message.failed');
});

test('not sent: MessageNotSent with the reason, once, never after a channel sent; a NOT_SENT message is not failed again', () => {
  const reason = MessagingMessages.notSentEmailSandbox;
  const notSent: MessagingEvent = { type: 'MessageNotSent', data: { ...base, reason, sandbox: true, provenance: { provider: 'sandbox-outbox', sandbox: true } } };
  given(messagingDecider, [queued]).when({ type: 'RecordNotSent', reason, sandbox: true, at: LATER }).then([notSent]);
  given(messagingDecider, [queued, notSent]).when({ type: 'RecordNotSent', reason, sandbox: true, at: LATER }).then([]);
  given(messagingDecider, [queued, notSent]).when({ type: 'RecordFailed', error: 'x', at: LATER }).then([]);
  given(messagingDecider, [queued, sentEmail]).when({ type: 'RecordNotSent', reason, sandbox: false, at: LATER }).then([]);
  const routed = routeEvent('MessageNotSent', notSent.data as unknown as Record<string, unknown>)!;
  assert.equal([routed.publicName, routed.data.status, routed.data.error, routed.data.sandbox], ['collection.message.failed', 'NOT_SENT', reason, true]);
});

test('OFFER_LINK: the product, the most the customer may choose, the link and the validity', () => {
  const text = renderMessage('OFFER_LINK', 'Maria', { ...CONTENT, link: 'https://app.example/oferta/tok', offer: { productName: 'Crédito pessoal', maxAmountCents: 800_000, maxTermMonths: 24 } }).text;
  assert.match(text, /Banco Exemplo tem uma oferta de Crédito pessoal para você: até R\$\s8\.000,00 em até 24 meses\./);
  assert.match(text, 'Ver a oferta e escolher: https://app.example/oferta/tok');
  assert.match(text, 'A oferta vale até 30/11/2026 às 20:59 (horário de Brasília).');
});

test('read: the read receipt, with the delivery it implies when none came; once; the status stays DELIVERED', () => {
  const sentChat: MessagingEvent = { type: 'MessageSent', data: { ...base, channel: 'WHATSAPP', providerMessageId: 'wamid.1' } };
  const delivered: MessagingEvent = { type: 'MessageDelivered', data: { ...base, channel: 'WHATSAPP' } };
  const read: MessagingEvent = { type: 'MessageRead', data: { ...base, channel: 'WHATSAPP' } };
  given(messagingDecider, [queued, sentChat]).when({ type: 'RecordRead', channel: 'WHATSAPP', at: LATER }).then([delivered, read]);
  given(messagingDecider, [queued, sentChat, delivered]).when({ type: 'RecordRead', channel: 'WHATSAPP', at: LATER }).then([read]);
  given(messagingDecider, [queued, sentChat, delivered, read]).when({ type: 'RecordRead', channel: 'WHATSAPP', at: LATER }).then([]);
  assert.is(given(messagingDecider, [queued, sentChat, delivered, read]).state.status, 'DELIVERED');
});

test('a channel lost after leaving: MessageChannelFailed, FAILED only once no channel carries it; never SENT again after; a delivered channel is not taken back', () => {
  const sentChat: MessagingEvent = { type: 'MessageSent', data: { ...base, channel: 'WHATSAPP', providerMessageId: 'wamid.1' } };
  const lost: MessagingEvent = { type: 'MessageChannelFailed', data: { ...base, channel: 'WHATSAPP', error: 'WhatsApp 131026: Message undeliverable', next: null } };
  const channelFailed = { type: 'RecordChannelFailed' as const, channel: 'WHATSAPP' as const, error: 'WhatsApp 131026: Message undeliverable', at: LATER };
  const failed: MessagingEvent = { type: 'MessageFailed', data: { ...base, error: 'EMAIL: 550; WHATSAPP: lost' } };
  const recordFailed = { type: 'RecordFailed' as const, error: 'EMAIL: 550; WHATSAPP: lost', at: LATER };
  // The e-mail took it: the message stays SENT, and FAILED is refused.
  given(messagingDecider, [queued, sentEmail, sentChat]).when(channelFailed).then([lost]);
  assert.is(given(messagingDecider, [queued, sentEmail, sentChat, lost]).state.status, 'SENT');
  given(messagingDecider, [queued, sentEmail, sentChat, lost]).when(recordFailed).then([]);
  // No other channel carries it: FAILED, despite the WhatsApp send; a repeated report adds nothing.
  given(messagingDecider, [queued, sentChat]).when(channelFailed).then([lost]);
  given(messagingDecider, [queued, sentChat, lost]).when(recordFailed).then([failed]);
  given(messagingDecider, [queued, sentChat, lost]).when(channelFailed).then([]);
  given(messagingDecider, [queued, sentChat, lost, failed]).when(channelFailed).then([]);
  // Its report outran the dispatcher: the late SENT is not recorded.
  given(messagingDecider, [queued, lost]).when({ type: 'RecordSent', channel: 'WHATSAPP', providerMessageId: 'wamid.1', provider: 'whatsapp-cloud-api', at: LATER }).then([]);
  // Delivered on the channel: a later report of it lost changes nothing.
  given(messagingDecider, [queued, sentChat, { type: 'MessageDelivered', data: { ...base, channel: 'WHATSAPP' } }])
    .when(channelFailed)
    .then([]);
});

test('fallback: MessageChannelFailed names the channel taking over; an invalid fallback is refused', () => {
  const { type: __, ...plannedData } = { ...queue, channels: ['WHATSAPP', 'EMAIL'] as MessageChannel[], fallback: { WHATSAPP: 'EMAIL' as const } };
  const queuedPlanned: MessagingEvent = { type: 'MessageQueued', data: plannedData };
  const plannedBase = { ...base, channels: plannedData.channels };
  given(messagingDecider, [queuedPlanned])
    .when({ type: 'RecordChannelFailed', channel: 'WHATSAPP', error: 'WhatsApp 131026', at: LATER })
    .then([{ type: 'MessageChannelFailed', data: { ...plannedBase, channel: 'WHATSAPP', error: 'WhatsApp 131026', next: 'EMAIL' } }]);
  given(messagingDecider)
    .when({ ...queue, fallback: { EMAIL: 'WHATSAPP', WHATSAPP: 'EMAIL' } })
    .thenError('invalid', MessagingMessages.invalidFallback);
});

test.run();

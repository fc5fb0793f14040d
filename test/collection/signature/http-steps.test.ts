import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SIGNATURE_CODE_ATTEMPTS_PER_ITEM_PER_DAY } from '../../../application/collection/signature/codes.ts';
import { ensureRegistry, receiveDocument } from '../../../application/registry/intake-commands.ts';
import { collectionStream } from '../../../domain/collection/events.ts';
import { SignatureMessages } from '../../../domain/collection/messages.ts';
import { PNG_BYTES } from '../../registry/support.ts';
import type { TestApp } from '../../support/app.ts';
import { serviceWithTenant, type TestTenant } from '../../support/identity.ts';
import { eventually } from '../../support/wait.ts';
import { detailWhen } from '../support.ts';
import { codeSentTo, page, registryWithContract, stepOf, submit, tokenOf } from './http-support.ts';

const test = suite('signatures through HTTP: the document, creation refusals, decline to the operator, codes refused');
let app: TestApp;
let tenant: TestTenant;
const call = serviceWithTenant(test, (a, t) => {
  app = a;
  tenant = t;
});

const signatureItem = (signature: Record<string, unknown>) => ({ key: 'contrato', kind: 'SIGNATURE', title: 'Contrato', config: { signature: { mode: 'JOINT', flow: 'SIGNATURE', ...signature } } });
const PARTIES = [
  { name: 'Ana Sócia', email: 'ana@example.com' },
  { name: 'Bruno Avalista', email: 'bruno@example.com', phone: '+5511988887777' },
];

async function signing(signature: Record<string, unknown> = {}) {
  const contract = await registryWithContract(app, tenant);
  const reply = await call('POST', '/v1/collections', {
    subject: contract.subject,
    items: [signatureItem({ registryDocumentId: contract.registryDocumentId, ...signature })],
    recipients: PARTIES,
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  return { ...contract, c: reply.body, itemId: reply.body.items[0].id as string, tokens: reply.body.links.map(tokenOf) as string[] };
}

test('creation refuses a SIGNATURE item without a document, with an unknown or non-PDF one, ordered without JOINT, or the config on another kind', async () => {
  const { subject, registryDocumentId } = await registryWithContract(app, tenant);
  const actor = { actorType: 'USER' as const, actorId: tenant.userId };
  const { registryId } = await ensureRegistry(app.app, tenant.organizationId, { ...subject, entityType: 'COMPANY' }, actor);
  const png = await receiveDocument(app.app, { organizationId: tenant.organizationId, registryId, fileName: 'foto.png', bytes: PNG_BYTES, expectedType: null, source: null, actor });
  const create = (items: unknown[]) => call('POST', '/v1/collections', { subject, items, recipients: PARTIES, notificationChannel: 'NONE', send: true });
  const refusals = [
    [[signatureItem({})], 400, SignatureMessages.documentRequired],
    [[signatureItem({ registryDocumentId: 'f'.repeat(24) })], 404, SignatureMessages.documentNotFound],
    [[signatureItem({ registryDocumentId: png.registryDocumentId })], 400, SignatureMessages.documentNotPdf],
    [[signatureItem({ registryDocumentId, mode: 'INDIVIDUAL', ordered: true })], 400, SignatureMessages.orderedOnlyJoint],
    [[{ key: 'assinatura', kind: 'SIGNATURE', title: 'Contrato' }], 400, SignatureMessages.configRequired],
    [
      [{ key: 'doc', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL', config: { signature: { mode: 'JOINT', registryDocumentId } } }],
      400,
      SignatureMessages.configOnOtherKind,
    ],
  ] as const;
  for (const [items, status, message] of refusals) {
    const reply = await create([...items]);
    assert.equal([reply.status, reply.body.message], [status, message], JSON.stringify(items));
  }
});

test('the party reads the document it signs (inline or as a download); another recipient link or item is refused', async () => {
  const { bytes, itemId, tokens, c } = await signing();
  const inline = await fetch(`${app.url}/c/${tokens[0]}/items/${itemId}/document`);
  assert.equal([inline.status, inline.headers.get('content-type'), inline.headers.get('content-disposition')], [200, 'application/pdf', 'inline; filename="contrato.pdf"']);
  assert.ok(Buffer.from(await inline.arrayBuffer()).equals(bytes));
  const download = await fetch(`${app.url}/c/${tokens[1]}/items/${itemId}/document?download=1`);
  assert.equal([download.status, download.headers.get('content-disposition')], [200, 'attachment; filename="contrato.pdf"']);
  assert.is((await fetch(`${app.url}/c/${tokens[0]}/items/${'a'.repeat(24)}/document`)).status, 404);
  assert.is((await fetch(`${app.url}/c/nao-existe/items/${itemId}/document`)).status, 404);
  assert.match(await page(app, tokens[0]!), new RegExp(`href="/c/${tokens[0]}/items/${itemId}/document"`));
  assert.is(c.items[0].details.signature.progress, '0 de 2 assinaturas coletadas; falta: Ana Sócia, Bruno Avalista');
});

test('codes: a WhatsApp code for a phone, none for a missing phone, no second code within a minute, no signature before the code', async () => {
  const { c, itemId, tokens } = await signing();
  const noPhone = await app.call('POST', `/c/${tokens[0]}/items/${itemId}/signature/code`, { body: { channel: 'PHONE' } });
  assert.equal([noPhone.status, noPhone.body.message], [400, SignatureMessages.noPhone]);
  const early = await app.call('POST', `/c/${tokens[1]}/items/${itemId}/signature/sign`, { body: {} });
  assert.equal([early.status, early.body.message], [409, SignatureMessages.contactNotVerified]);
  const sent = await app.call('POST', `/c/${tokens[1]}/items/${itemId}/signature/code`, { body: { channel: 'PHONE' } });
  assert.equal([sent.status, sent.body.signature.parties[1].contactVerified], [200, false]);
  assert.match(await codeSentTo(app, c.id, '+5511988887777', 'WHATSAPP'), /^\d{6}$/);
  const again = await app.call('POST', `/c/${tokens[1]}/items/${itemId}/signature/code`, { body: { channel: 'EMAIL' } });
  assert.equal([again.status, again.body.message], [429, SignatureMessages.codeTooSoon]);
  const malformed = await app.call('POST', `/c/${tokens[1]}/items/${itemId}/signature/verify`, { body: { code: '12a' } });
  assert.equal([malformed.status, malformed.body.message], [400, SignatureMessages.codeFormat]);
  assert.match(await page(app, tokens[1]!), /Enviamos um código para WhatsApp terminado em 7777/);
});

test('codes: a wrong code appends nothing yet counts, across concurrent requests; past 5 tries even the right code is refused; a new code starts again', async () => {
  const { c, itemId, tokens } = await signing();
  const path = `/c/${tokens[0]}/items/${itemId}/signature`;
  const verifications = async () => (await app.app.store.readStream(collectionStream(c.id))).filter((e) => e.type === 'SignatureContactVerified');
  assert.is((await app.call('POST', `${path}/code`, { body: { channel: 'EMAIL' } })).status, 200);
  const code = await codeSentTo(app, c.id, 'ana@example.com', 'EMAIL');
  const wrongCode = code === '000000' ? '111111' : '000000';
  const wrong = () => app.call('POST', `${path}/verify`, { body: { code: wrongCode } });
  const together = await Promise.all([wrong(), wrong(), wrong()]);
  assert.equal(
    together.map((r) => r.status),
    [400, 400, 400],
  );
  assert.equal(
    together.map((r) => r.body.message).sort(),
    [2, 3, 4].map((left) => SignatureMessages.wrongCode(left)),
    'each concurrent try has its own count',
  );
  assert.equal([(await wrong()).body.message, (await wrong()).body.message], [SignatureMessages.wrongCode(1), SignatureMessages.wrongCode(0)]);
  const locked = await app.call('POST', `${path}/verify`, { body: { code } });
  assert.equal([locked.status, locked.body.message], [429, SignatureMessages.tooManyAttempts]);
  assert.equal(await verifications(), [], 'no refused try reached the stream');

  const clock = app.app.clock;
  app.app.clock = { now: () => new Date(Date.now() + 2 * 60_000) };
  try {
    assert.is((await app.call('POST', `${path}/code`, { body: { channel: 'EMAIL' } })).status, 200);
    const renewed = await eventually(
      async () => {
        const latest = await codeSentTo(app, c.id, 'ana@example.com', 'EMAIL');
        return latest !== code && latest;
      },
      { timeoutMs: 20_000, what: 'the new code' },
    );
    const verified = await app.call('POST', `${path}/verify`, { body: { code: renewed } });
    assert.equal([verified.status, verified.body.signature.parties[0].contactVerified], [200, true]);
  } finally {
    app.app.clock = clock;
  }
  assert.equal(
    (await verifications()).map((e) => e.data.payload),
    [{ channel: 'EMAIL', verified: true, attemptsLeft: 5 }],
  );
  assert.is((await app.app.db('collection_signature_code_attempts').where({ collection_id: c.id })).length, 0, 'the count is dropped once verified');
});

test("codes: tries at an item's codes are capped per day, whichever code and party: a new code does not start the day again", async () => {
  const { c, itemId, tokens } = await signing();
  const path = (party: number) => `/c/${tokens[party]}/items/${itemId}/signature`;
  assert.is((await app.call('POST', `${path(0)}/code`, { body: { channel: 'EMAIL' } })).status, 200);
  const code = await codeSentTo(app, c.id, 'ana@example.com', 'EMAIL');
  const wrongCode = code === '000000' ? '111111' : '000000';
  const tries = [];
  for (let i = 0; i < SIGNATURE_CODE_ATTEMPTS_PER_ITEM_PER_DAY; i++) tries.push((await app.call('POST', `${path(0)}/verify`, { body: { code: wrongCode } })).status);
  assert.equal(tries, [...Array(5).fill(400), ...Array(SIGNATURE_CODE_ATTEMPTS_PER_ITEM_PER_DAY - 5).fill(429)]);
  const clock = app.app.clock;
  app.app.clock = { now: () => new Date(Date.now() + 2 * 60_000) };
  try {
    assert.is((await app.call('POST', `${path(0)}/code`, { body: { channel: 'EMAIL' } })).status, 200);
    const renewed = await eventually(
      async () => {
        const latest = await codeSentTo(app, c.id, 'ana@example.com', 'EMAIL');
        return latest !== code && latest;
      },
      { timeoutMs: 20_000, what: 'the new code' },
    );
    const refused = await app.call('POST', `${path(0)}/verify`, { body: { code: renewed } });
    assert.equal([refused.status, refused.body.message], [429, SignatureMessages.tooManyAttemptsToday], 'even the right code of a new one');
    assert.is((await app.call('POST', `${path(1)}/code`, { body: { channel: 'EMAIL' } })).status, 200);
    const other = await app.call('POST', `${path(1)}/verify`, { body: { code: await codeSentTo(app, c.id, 'bruno@example.com', 'EMAIL') } });
    assert.equal([other.status, other.body.message], [429, SignatureMessages.tooManyAttemptsToday], "the item's other party too");
  } finally {
    app.app.clock = clock;
  }
  const verified = (await app.app.store.readStream(collectionStream(c.id))).filter((e) => e.type === 'SignatureContactVerified');
  assert.equal(verified, []);
});

test('decline: recorded with the reason, the item waits in the operator queue, the other party cannot go on; the operator waives and the collection completes', async () => {
  const { c, itemId, tokens } = await signing();
  const empty = await submit(app, tokens[0]!, itemId, 'decline', { reason: '   ' });
  assert.equal([empty.status, empty.text.includes(SignatureMessages.declineReasonRequired)], [400, true]);
  const declined = await submit(app, tokens[0]!, itemId, 'decline', { reason: 'O valor do contrato está errado.' });
  assert.equal([declined.status, declined.location], [303, `/c/${tokens[0]}#item-${itemId}`]);
  assert.is(stepOf(await page(app, tokens[0]!)), 'declined');
  assert.is(stepOf(await page(app, tokens[1]!)), 'stopped');
  const blocked = await app.call('POST', `/c/${tokens[1]}/items/${itemId}/signature/code`, { body: { channel: 'EMAIL' } });
  assert.equal([blocked.status, blocked.body.message], [409, SignatureMessages.declined]);

  const stopped = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.items[0].status === 'AWAITING_OPERATOR', 'the decline');
  assert.equal([stopped.itemsAwaitingOperator, stopped.items[0].details.signature.progress], [1, '0 de 2 assinaturas coletadas; falta: Bruno Avalista; recusou: Ana Sócia']);
  assert.equal(
    stopped.items[0].details.signature.parties.map((p: any) => [p.declined, p.declineReason]),
    [
      [true, 'O valor do contrato está errado.'],
      [false, null],
    ],
  );
  const entry = stopped.trail.find((e: any) => e.action === 'SIGNATURE_DECLINED');
  assert.equal([entry.recipientId, entry.actorType, entry.payload], [c.recipients[0].id, 'RECIPIENT', { reason: 'O valor do contrato está errado.' }]);
  const queue = await call('GET', '/v1/collections/operator-queue');
  assert.ok(
    queue.body.items.some((row: any) => row.item.id === itemId && row.item.status === 'AWAITING_OPERATOR'),
    JSON.stringify(queue.body),
  );

  assert.is((await call('POST', `/v1/collections/${c.id}/items/${itemId}/waive`, { reason: 'Contrato assinado em papel.' })).status, 200);
  await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'completion after the waiver');
});

test('INDIVIDUAL: each party signs their own copy; both signed, one signed copy per party completes the item', async () => {
  const { c, itemId, tokens } = await signing({ mode: 'INDIVIDUAL' });
  for (const [index, party] of PARTIES.entries()) {
    assert.is((await submit(app, tokens[index]!, itemId, 'code', { channel: 'EMAIL' })).status, 303);
    assert.is((await submit(app, tokens[index]!, itemId, 'verify', { code: await codeSentTo(app, c.id, party.email, 'EMAIL') })).status, 303);
    assert.is((await submit(app, tokens[index]!, itemId, 'sign')).status, 303);
  }
  // The signed-document worker makes both copies; the item resolves with the last of them.
  const signed = await detailWhen(app, call, tenant.organizationId, c.id, (d) => d.status === 'COMPLETED', 'both signatures and their copies');
  const { status, details } = signed.items[0];
  assert.equal([status, details.signature.progress, details.signature.pdfCopyAvailable, details.signature.signedDocumentAvailable], ['VALIDATED', '2 de 2 assinaturas coletadas', true, true]);
});

test.run();

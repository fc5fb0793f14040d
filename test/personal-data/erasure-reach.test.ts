import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readOutbox } from '../../application/messaging/channels/outbox.ts';
import { deliveryBodies } from '../../projections/webhook/bodies.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver } from '../support/webhook-receiver.ts';
import { createReport, statementPdf, stored, uploadAll } from '../financial-upload/support.ts';

const test = suite('personal data: an erasure reaches webhook bodies, financial statements and the messaging outbox');
let app: TestApp;
let tenant: TestTenant;

test.before(async () => {
  app = await startTestApp({ SOURCE_TIMEOUT_MS: '200' });
  tenant = await provisionTenant(app);
});
test.after(async () => {
  await app?.stop();
});

const CNPJ = '10000001000190';

test('erasing a company: its webhook delivery bodies no longer carry the document, its statement PDFs are deleted', async () => {
  const receiver = await startReceiver();
  try {
    const sub = await app.call('POST', '/v1/webhook/subscriptions', { token: tenant.token, body: { url: receiver.url, events: ['report.finished', 'report.status.changed'] } });
    assert.is(sub.status, 201, JSON.stringify(sub.body));
    const reportId = await createReport(app, tenant);
    const [key] = await uploadAll(app, tenant, reportId, [{ name: 'balanco.pdf', bytes: await statementPdf('Balanço Patrimonial 2025') }]);
    const submitted = await app.call('POST', `/report/${reportId}/financial-tab/complete`, { token: tenant.token, body: { keys: [key] } });
    assert.is(submitted.status, 200, JSON.stringify(submitted.body));
    await receiver.waitFor(1);
    const ids = async () => (await app.app.db('webhook_deliveries').where({ subscription_id: sub.body.id }).select('id')).map((row: { id: string }) => row.id);
    const bodies = async () => [...(await deliveryBodies(app.app.db, await ids())).values()].join('\n');
    assert.ok((await bodies()).includes(CNPJ), 'the bodies carry the document before');
    assert.ok(await stored(app, key!), 'the statement is stored');

    const erased = await app.call('POST', '/v1/personal-data/erase', { token: tenant.token, body: { document: CNPJ, type: 'cnpj' } });
    assert.is(erased.status, 200, JSON.stringify(erased.body));
    assert.not.ok((await bodies()).includes(CNPJ), 'no kept webhook body names the document');
    for (const body of (await deliveryBodies(app.app.db, await ids())).values()) JSON.parse(body);
    assert.is(await stored(app, key!), null, 'the statement PDF is deleted');
  } finally {
    await receiver.close();
  }
});

test('erasing a collection recipient: their spooled messages (link, address) read erased', async () => {
  const created = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Mercado Central Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'foto', kind: 'CUSTOM', title: 'Foto da fachada' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const [link] = created.body.links;
  const spooled = () => readOutbox(app.app, (q) => q.whereIn('message_id', app.app.db('messaging_messages').where({ collection_id: created.body.id }).select('id')));
  const [before] = await eventually(
    async () => {
      const rows = await spooled();
      return rows.length > 0 && rows;
    },
    { timeoutMs: 20_000, what: 'the invitation in the outbox' },
  );
  assert.ok(before!.text.includes(link.token), 'the invitation carries the link');
  assert.is(before!.to, 'ana@example.com');
  const erased = await app.call('POST', '/v1/personal-data/erase-recipient', { token: tenant.token, body: { collectionId: created.body.id, recipientId: created.body.recipients[0].id } });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  const [after] = await spooled();
  assert.equal([after!.to, after!.subject, after!.text, after!.html], ['***', '***', '***', '***']);
  const raw = JSON.stringify(await app.app.db('messaging_outbox').where({ message_id: after!.messageId }));
  assert.not.ok(raw.includes(link.token), 'no clear link at rest');
});

test.run();

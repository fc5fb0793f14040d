import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pdfWith } from '../registry/support.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';
import { detailWhen, VALID_CONTRACT } from './support.ts';

interface Ctx {
  smtp: SmtpReceiver;
  hooks: Receiver;
  app: TestApp;
  tenant: TestTenant;
  secret: string;
}
const test = suite<Ctx>('a collection from request to completion: e-mail, link, upload, analysis, signed webhook');

test.before(async (ctx) => {
  ctx.smtp = await startSmtpReceiver();
  ctx.hooks = await startReceiver();
  ctx.app = await startTestApp({ SMTP_URL: ctx.smtp.url });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  const reply = await ctx.app.call('POST', '/v1/webhook/subscriptions', {
    token: ctx.tenant.token,
    body: { url: `${ctx.hooks.url}/hooks`, events: ['collection.sent', 'collection.item.submitted', 'collection.item.assessed', 'collection.completed'] },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  ctx.secret = reply.body.secret;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.smtp?.close();
  await ctx.hooks?.close();
});

test('created and sent; the invitation arrives by SMTP; its link opens the page; the uploaded PDF resolves the item; collection.completed arrives signed', async (ctx) => {
  const created = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@padaria.example' }],
      message: 'Precisamos do contrato social para seguir com o crédito.',
      notificationChannel: 'EMAIL',
      resolutionMode: 'AUTOMATIC',
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const collectionId = created.body.id;

  const [mail] = await ctx.smtp.waitFor(1, 20_000);
  const to = mail!.to && 'value' in mail!.to ? mail!.to.value[0] : undefined;
  assert.equal([to?.name, to?.address], ['Ana Sócia', 'ana@padaria.example']);
  const link = /https?:\/\/\S+\/c\/[A-Za-z0-9_-]+/.exec(mail!.text ?? '')![0];
  const pageUrl = link.replace(ctx.app.app.config.PUBLIC_BASE_URL, ctx.app.url);
  const page = await fetch(pageUrl, { headers: { accept: 'text/html' } });
  assert.is(page.status, 200);
  assert.match(await page.text(), /Contrato social/);

  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(await pdfWith([...VALID_CONTRACT, 'Padaria Exemplo Ltda']))], { type: 'application/pdf' }), 'contrato.pdf');
  const sent = await fetch(`${pageUrl}/items/${created.body.items[0].id}`, { method: 'POST', body: form, redirect: 'manual', headers: { accept: 'text/html' } });
  assert.is(sent.status, 303, await sent.text());

  const completed = await eventually(async () => ctx.hooks.received.find((r) => JSON.parse(r.body).event === 'collection.completed' && r.body.includes(collectionId)), {
    timeoutMs: 30_000,
    what: 'collection.completed',
  });
  assert.ok(receiverAccepts(ctx.secret, completed.headers, completed.body), 'signed with the subscription secret');
  const events = ctx.hooks
    .json()
    .filter((b) => b.data.collectionId === collectionId)
    .map((b) => b.event);
  assert.equal(events.slice(0, 2), ['collection.sent', 'collection.item.submitted']);
  assert.ok(events.includes('collection.item.assessed'));
  // The webhook may arrive before the read model the detail is served from has the completion.
  const call = (method: string, path: string) => ctx.app.call(method, path, { token: ctx.tenant.token });
  const detail = await detailWhen(ctx.app, call, ctx.tenant.organizationId, collectionId, (d) => d.status === 'COMPLETED', 'the completed detail');
  assert.equal([detail.status, detail.items[0].status, detail.recipients[0].status], ['COMPLETED', 'VALIDATED', 'COMPLETED']);
});

test.run();

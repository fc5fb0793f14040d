import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recordDecision, sendIndicativeOffer, startAnalysis } from '../../application/proposal/commands.ts';
import { messageStream } from '../../domain/messaging/events.ts';
import { MessagingMessages } from '../../domain/messaging/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startSmtpReceiver, type SmtpReceiver } from '../support/smtp-receiver.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  smtp: SmtpReceiver;
  app: TestApp;
  tenant: TestTenant;
}
const test = suite<Ctx>('offers are sent: the indicative offer link and each resend go to the proposal contact through messaging');
const EXECUTION = 'e0000000000000000000000b';
const offer = { minAmountCents: 200_000, maxAmountCents: 800_000, minTermMonths: 6, maxTermMonths: 24, rateBpsYear: 2682, model: 'PRICE' as const, validUntil: '2999-01-01T00:00:00.000Z' };

test.before(async (ctx) => {
  ctx.smtp = await startSmtpReceiver();
  ctx.app = await startTestApp({ SMTP_URL: ctx.smtp.url, SMTP_FROM: 'Banco Exemplo <nao-responda@banco.example>' });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  await seedProduct(ctx.app, ctx.tenant.organizationId);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await ctx.smtp?.close();
});

async function offered(ctx: Ctx, contact: Record<string, unknown> | undefined, document = '12345678909') {
  const created = await ctx.app.call('POST', '/v1/proposals', {
    token: ctx.tenant.token,
    body: { document, name: 'Maria Silva', productKey: 'credito-pessoal', requestedAmountCents: 500_000, requestedTermMonths: 12, ...(contact ? { contact } : {}) },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const step = { organizationId: ctx.tenant.organizationId, proposalId: created.body.id as string, executionId: EXECUTION };
  await startAnalysis(ctx.app.app, { ...step, kind: 'OPERATION', targetId: '0123456789abcdef01234567' });
  await recordDecision(ctx.app.app, { ...step, decision: 'APPROVED', step: 'policy' });
  return { proposalId: step.proposalId, ...(await sendIndicativeOffer(ctx.app.app, { ...step, offer })) };
}

const mailWith = (ctx: Ctx, url: string) => eventually(async () => ctx.smtp.mails.find((m) => m.text?.includes(url)), { timeoutMs: 15_000, what: `a mail with ${url}` });
const page = (ctx: Ctx, url: string) => fetch(url.replace(ctx.app.app.config.PUBLIC_BASE_URL, ctx.app.url), { headers: { accept: 'text/html' } });

test('issuing an offer mails its link to the contact; resend mails a new link and the old one stops opening', async (ctx) => {
  const { proposalId, offerId, linkToken } = await offered(ctx, { name: 'Maria', email: 'maria@example.com' });
  const first = `${ctx.app.app.config.PUBLIC_BASE_URL}/oferta/${linkToken}`;
  const mail = await mailWith(ctx, first);
  assert.ok(JSON.stringify(mail.to).includes('maria@example.com'));
  assert.is(mail.subject, 'Banco Exemplo: sua oferta de crédito (Crédito pessoal)');
  assert.match(mail.text ?? '', /até R\$\s8\.000,00 em até 24 meses/);
  assert.is((await page(ctx, first)).status, 200, 'the mailed link opens the offer page');

  const resent = await ctx.app.call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/resend`, { token: ctx.tenant.token });
  assert.is(resent.status, 200, JSON.stringify(resent.body));
  assert.match(resent.body.messageId, /^[0-9a-f]{24}$/);
  const again = await mailWith(ctx, resent.body.url);
  assert.ok(JSON.stringify(again.to).includes('maria@example.com'));
  assert.is((await page(ctx, resent.body.url)).status, 200);
  assert.is((await page(ctx, first)).status, 404, 'the previous link stops opening');

  // The same message events as any other: queued, then sent on e-mail; the read model says SENT.
  const events = await eventually(
    async () => {
      const stream = await ctx.app.app.store.readStream(messageStream(resent.body.messageId));
      return stream.some((e) => e.type === 'MessageSent') ? stream : undefined;
    },
    { timeoutMs: 15_000, what: 'MessageSent' },
  );
  assert.equal(
    events.map((e) => e.type),
    ['MessageQueued', 'MessageSent'],
  );
  assert.equal(events[0]!.data.correlation, { proposalId, offerId });
  assert.is(events[0]!.data.template, 'OFFER_LINK');
  // A message records the provider that carried it (issue 37): SMTP, never a sandbox.
  assert.equal(events[1]!.data.provenance, { provider: 'smtp', sandbox: false });
  const row = await eventually(
    async () => {
      const current = await ctx.app.app.db('messaging_messages').where({ id: resent.body.messageId }).first();
      return current?.status === 'SENT' ? current : undefined;
    },
    { timeoutMs: 15_000, what: 'SENT in the read model' },
  );
  assert.equal(row.sent_channels, ['EMAIL']);
});

test('a proposal without a contact sends nothing: resend answers messageId null and the caller delivers the link', async (ctx) => {
  const { proposalId, offerId } = await offered(ctx, undefined);
  const resent = await ctx.app.call('POST', `/v1/proposals/${proposalId}/offers/${offerId}/resend`, { token: ctx.tenant.token });
  assert.is(resent.status, 200, JSON.stringify(resent.body));
  assert.is(resent.body.messageId, null);
  assert.is(
    await ctx.app.app
      .db('messaging_messages')
      .where({ template: 'OFFER_LINK' })
      .whereRaw(`id = ?`, [resent.body.messageId ?? ''])
      .first(),
    undefined,
  );
});

test("erasing the proposal's holder makes the offer messages' sealed addressee and content unreadable", async (ctx) => {
  const holder = '11144477735';
  const { linkToken, proposalId } = await offered(ctx, { name: 'Joana Contato', email: 'joana@example.com', phone: '+5511912345678' }, holder);
  await mailWith(ctx, linkToken);
  const messageId = await eventually(
    async () => {
      for (const { id } of await ctx.app.app.db('messaging_messages').where({ template: 'OFFER_LINK' }).select('id')) {
        const [queued] = await ctx.app.app.store.readStream(messageStream(id));
        if ((queued!.data.correlation as { proposalId?: string }).proposalId === proposalId) return id as string;
      }
      return undefined;
    },
    { what: 'the offer message' },
  );
  const before = (await ctx.app.app.store.readStream(messageStream(messageId)))[0]!.data as any;
  assert.equal(before.to, { name: 'Joana Contato', email: 'joana@example.com', phone: '+5511912345678' });

  const erased = await ctx.app.call('POST', '/v1/personal-data/erase', { token: ctx.tenant.token, body: { document: holder, type: 'CPF' } });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  const after = await ctx.app.app.store.readStream(messageStream(messageId));
  const text = JSON.stringify(after.map((e) => e.data));
  for (const secret of ['Joana Contato', 'joana@example.com', '+5511912345678', linkToken]) assert.not.ok(text.includes(secret), `${secret} still readable: ${text}`);
  assert.equal(after.map((e) => e.type).slice(0, 1), ['MessageQueued'], 'the events stay; only their personal data is gone');
});

test("the offer's channels: the contact's own order over the organization's (PUT /v1/messaging/settings) over the deployment's", async (ctx) => {
  const channelsOf = async (proposalId: string) =>
    eventually(
      async () => {
        for (const { id } of await ctx.app.app.db('messaging_messages').where({ template: 'OFFER_LINK' }).select('id')) {
          const [queued] = await ctx.app.app.store.readStream(messageStream(id));
          if ((queued!.data.correlation as { proposalId?: string }).proposalId === proposalId) return queued!.data.channels as string[];
        }
        return undefined;
      },
      { what: `the offer message of ${proposalId}` },
    );
  const contact = { name: 'Rita', email: 'rita@example.com', phone: '+5511955554444' };
  assert.equal(await channelsOf((await offered(ctx, contact)).proposalId), ['WHATSAPP', 'EMAIL'], "the deployment's order (no SMS provider here)");
  assert.equal((await ctx.app.call('PUT', '/v1/messaging/settings', { token: ctx.tenant.token, body: { channelOrder: ['EMAIL'] } })).status, 200);
  assert.equal(await channelsOf((await offered(ctx, contact)).proposalId), ['EMAIL', 'WHATSAPP'], "the organization's");
  const own = await offered(ctx, { ...contact, channelOrder: ['WHATSAPP'] });
  assert.equal(await channelsOf(own.proposalId), ['WHATSAPP', 'EMAIL'], "the contact's own wins");
  assert.equal((await ctx.app.call('GET', `/v1/proposals/${own.proposalId}`, { token: ctx.tenant.token })).body.contact.channelOrder, ['WHATSAPP']);
  const refused = await ctx.app.call('POST', '/v1/proposals', {
    token: ctx.tenant.token,
    body: { document: '12345678909', name: 'Maria', productKey: 'credito-pessoal', contact: { ...contact, channelOrder: ['WHATSAPP', 'WHATSAPP'] } },
  });
  assert.equal([refused.status, refused.body], [400, { code: 400, message: MessagingMessages.invalidChannelOrder }]);
  assert.equal((await ctx.app.call('PUT', '/v1/messaging/settings', { token: ctx.tenant.token, body: { channelOrder: null } })).status, 200);
});

test.run();

import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sendIndicativeOffer } from '../../application/proposal/commands.ts';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { PROPOSAL_PROJECTION } from '../../projections/proposal/projection.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { companyForm, scrTerm } from './forms/fixtures.ts';
import { newCnpj } from './support.ts';

const test = suite('page forms: the link is checked before a byte of the body is read, and each body is bounded');
let app: TestApp;
let tenant: TestTenant;

test.before(async () => {
  app = await startTestApp();
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
});
test.after(async () => {
  await app?.stop();
});

/** A sent collection with a FORM and a CONSENT item for one recipient (and `open`: a FORM left unanswered, so the collection stays open once they are resolved). */
async function collection(open = false) {
  const reply = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
      items: [
        { key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: companyForm() } },
        { key: 'scr', kind: 'CONSENT', title: 'Consulta ao SCR', config: { consent: scrTerm() } },
        ...(open ? [{ key: 'outra', kind: 'FORM', title: 'Outra ficha', config: { form: companyForm() } }] : []),
      ],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com', itemKeys: ['ficha', 'scr', ...(open ? ['outra'] : [])] }],
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const item = (key: string) => (reply.body.items as { id: string; key: string }[]).find((i) => i.key === key)!.id;
  return { token: reply.body.links[0].token as string, ficha: item('ficha'), scr: item('scr') };
}

/** How long a reply may take while the body is left unfinished; a server reading the body first never answers. */
const NO_REPLY_MS = 15_000;

/**
 * A POST whose body is never finished: its first 8 KB go out, then nothing, with a Content-Length
 * of 900 KB (below BODY_LIMIT, so a parser would wait for the rest) or chunked (`length`
 * undefined). Only a server that answers without reading the body replies at all.
 */
function postUnfinished(path: string, contentType: string, length?: number): Promise<{ status: number; body: any; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': contentType, accept: 'application/json', ...(length ? { 'content-length': String(length) } : {}) };
    const req = request(`${app.url}${path}`, { method: 'POST', headers });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`no reply to ${path} before the body ended: the server waits for the body`));
    }, NO_REPLY_MS);
    req.on('response', (response) => {
      clearTimeout(timer);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()), connection: response.headers.connection });
        req.destroy();
      });
    });
    // The server closes once it has answered: the rest of the body has nowhere to go.
    req.on('error', () => undefined);
    req.write(contentType.includes('json') ? `{"answers":{"razao_social":"${'a'.repeat(8 * 1024)}` : `answers[razao_social]=${'a'.repeat(8 * 1024)}`);
  });
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';
const MADE_UP = 'x'.repeat(43);
const notFound = (reply: { status: number; body: unknown }) => [reply.status, (reply.body as { code: number }).code, typeof (reply.body as { message: unknown }).message];

test('a made-up link token on every recipient form: 404 with the error body before the body is read, and the connection closes', async () => {
  const c = await collection();
  const paths = [`/c/${MADE_UP}/items/${c.ficha}/form`, `/c/${MADE_UP}/items/${c.scr}/consent`, `/c/${MADE_UP}/items/${c.ficha}/signature/sign`, `/c/${MADE_UP}/items/${c.ficha}/signature/decline`];
  for (const path of paths) {
    for (const [type, length] of [
      [FORM, 900_000],
      [FORM, undefined],
      [JSON_TYPE, 900_000],
    ] as const) {
      const reply = await postUnfinished(path, type, length);
      assert.equal(notFound(reply), [404, 404, 'string'], `${path} ${type} ${length ?? 'chunked'}`);
      assert.is(reply.connection, 'close');
    }
  }
});

test("another recipient's item, or an item of another collection, with a real token: 404 before the body is read", async () => {
  const c = await collection();
  const other = await collection();
  const reply = await postUnfinished(`/c/${c.token}/items/${other.ficha}/form`, FORM);
  assert.equal(notFound(reply), [404, 404, 'string']);
});

test('the offer choice and the public form: a gone link or template is refused before the body is read', async () => {
  const offer = await postUnfinished(`/oferta/${MADE_UP}/escolha`, FORM, 900_000);
  assert.equal(notFound(offer), [404, 404, 'string']);
  const form = await postUnfinished(`/formulario/${'a'.repeat(24)}`, FORM);
  assert.equal(notFound(form), [404, 404, 'string']);
});

test('an item no longer waiting (a FORM answered, a CONSENT accepted, one never accepted revoked): 409 before the body is read, with the reason', async () => {
  const c = await collection(true);
  const never = await postUnfinished(`/c/${c.token}/items/${c.scr}/consent/revoke`, FORM, 900_000);
  assert.equal([never.status, never.body.code, never.connection], [409, 409, 'close']);
  assert.is(never.body.message, CollectionMessages.consentNotAccepted);
  const open = await post(`/c/${c.token}/items/${c.ficha}/form`, JSON.stringify({ answers: { faturamento: 1000, razao_social: 'Padaria' } }), JSON_TYPE);
  assert.is(open.status, 200, 'a waiting FORM still takes its answers after the dry run');
  const accepted = await post(`/c/${c.token}/items/${c.scr}/consent`, `accept=true&termHash=${scrTerm().hash}`);
  assert.is(accepted.status, 200);
  for (const [path, message] of [
    [`/c/${c.token}/items/${c.ficha}/form`, CollectionMessages.itemResolved],
    [`/c/${c.token}/items/${c.scr}/consent`, CollectionMessages.itemResolved],
  ] as const) {
    for (const [type, length] of [
      [FORM, 900_000],
      [FORM, undefined],
      [JSON_TYPE, 900_000],
    ] as const) {
      const reply = await postUnfinished(path, type, length);
      assert.equal([reply.status, reply.body.code, reply.body.message, reply.connection], [409, 409, message, 'close'], `${path} ${type} ${length ?? 'chunked'}`);
    }
  }
});

const post = async (path: string, body: string, type = FORM) => {
  const response = await fetch(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': type, accept: 'application/json' }, body });
  return { status: response.status, body: await response.json() };
};
const tooLarge = { code: 413, message: Messages.bodyTooLarge };

test("a real link with a body past its route's bound: 413 with the error body, nothing recorded", async () => {
  const c = await collection();
  const answers = await post(`/c/${c.token}/items/${c.ficha}/form`, `answers[razao_social]=${'a'.repeat(70 * 1024)}`);
  assert.equal(answers, { status: 413, body: tooLarge });
  const json = await post(
    `/c/${c.token}/items/${c.ficha}/form`,
    JSON.stringify({ answers: { razao_social: 'a'.repeat(9_000), setor: 'b'.repeat(9_000), cep: 'c'.repeat(9_000), x: 'd'.repeat(40_000) } }),
    JSON_TYPE,
  );
  assert.equal(json, { status: 413, body: tooLarge });
  const consent = await post(`/c/${c.token}/items/${c.scr}/consent`, `accept=true&termHash=${'a'.repeat(20 * 1024)}`);
  assert.equal(consent, { status: 413, body: tooLarge });
  // Nothing was recorded: the items wait as they did, and a body of the right size still goes through.
  const accepted = await post(`/c/${c.token}/items/${c.scr}/consent`, `accept=true&termHash=${scrTerm().hash}`);
  assert.equal([accepted.status, accepted.body.status], [200, 'VALIDATED']);
  const answered = await post(`/c/${c.token}/items/${c.ficha}/form`, JSON.stringify({ answers: { faturamento: 1000, razao_social: 'Padaria' } }), JSON_TYPE);
  assert.is(answered.status, 200, JSON.stringify(answered.body));
});

test('a real offer link with a choice past its bound: 413 with the error body', async () => {
  const p = (await app.call('POST', '/v1/proposals', { token: tenant.token, body: { document: '12345678909', name: 'Maria Souza', productKey: 'credito-pessoal', requestedAmountCents: 500_000 } }))
    .body;
  const offer = {
    minAmountCents: 200_000,
    maxAmountCents: 800_000,
    minTermMonths: 6,
    maxTermMonths: 24,
    rateBpsYear: 2682,
    rate: { value: '2', period: 'MONTH' as const },
    model: 'PRICE' as const,
    validUntil: '2999-01-01T00:00:00.000Z',
  };
  const result = await sendIndicativeOffer(app.app, { organizationId: tenant.organizationId, proposalId: p.id, executionId: 'e0000000000000000000000c', offer });
  await app.app.readYourWrites([PROPOSAL_PROJECTION], result.position);
  const reply = await post(`/oferta/${result.linkToken}/escolha`, `amount=5000&termMonths=12&x=${'a'.repeat(20 * 1024)}`);
  assert.equal(reply, { status: 413, body: tooLarge });
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../domain/collection/events.ts';
import type { TestApp } from '../support/app.ts';
import { serviceWithTenant } from '../support/identity.ts';
import { collectionDetail } from '../../projections/collection/queries.ts';
import { newCnpj } from '../collection/support.ts';
import { checkReply } from '../support/contract.ts';
import { pdfWith } from '../registry/support.ts';
import { eventually } from '../support/wait.ts';

const test = suite('recipient page: open, upload, isolation, closed links');
let app: TestApp;
let organizationId: string;
const call = serviceWithTenant(test, (a, tenant) => {
  app = a;
  organizationId = tenant.organizationId;
});

interface Created {
  id: string;
  subjectDocument: string;
  items: Array<{ id: string; key: string }>;
  links: Array<{ recipientId: string; token: string }>;
  recipients: Array<{ id: string; name: string }>;
}

async function createCollection(mode = 'AUTOMATIC'): Promise<{ c: Created; ana: string; beto: string; contrato: string; foto: string }> {
  const reply = await call('POST', '/v1/collections', {
    // A company of its own: a contract validated in another test would be on file here.
    subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
    items: [
      { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL', instructions: 'A última alteração, <registrada>.' },
      { key: 'foto', kind: 'CUSTOM', title: 'Foto da fachada' },
    ],
    recipients: [
      { name: 'Ana Sócia', email: 'ana@example.com', itemKeys: ['contrato'] },
      { name: 'Beto <Contador>', email: 'beto@example.com', itemKeys: ['foto'] },
    ],
    message: 'Olá! Precisamos destes documentos & mais nada.',
    resolutionMode: mode,
    notificationChannel: 'NONE',
    send: true,
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const c = reply.body as Created;
  const item = (key: string) => c.items.find((i) => i.key === key)!.id;
  return { c, ana: c.links[0]!.token, beto: c.links[1]!.token, contrato: item('contrato'), foto: item('foto') };
}

const page = async (token: string) => {
  const response = await fetch(`${app.url}/c/${token}`, { headers: { accept: 'text/html' } });
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
};

async function uploadTo(token: string, itemId: string, bytes: Buffer, fileName = 'contrato.pdf', accept = 'text/html') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
  const path = `/c/${token}/items/${itemId}`;
  const response = await fetch(app.url + path, { method: 'POST', body: form, redirect: 'manual', headers: { accept } });
  const html = await response.text();
  if (accept !== 'text/html') checkReply('POST', path, { status: response.status, body: JSON.parse(html), contentType: response.headers.get('content-type') });
  return { status: response.status, location: response.headers.get('location'), html };
}

// The stream, not a read model: what was recorded, at once.
const recorded = async (collectionId: string) => (await app.app.store.readStream(collectionStream(collectionId))).map((e) => e.type);
const streamLength = async (collectionId: string) => (await recorded(collectionId)).length;
const opened = async (collectionId: string) => (await recorded(collectionId)).filter((type) => type === 'RecipientOpened').length;
const itemStatus = async (collectionId: string, itemId: string) => (await collectionDetail(app.app.db, organizationId, collectionId))!.items.find((i) => i.itemId === itemId)!.status;

test("the page shows the organization, the message and only this recipient's items, escaped; opening is recorded once", async () => {
  const { c, ana, beto, contrato, foto } = await createCollection();
  const first = await page(ana);
  assert.is(first.status, 200);
  assert.is(first.type, 'text/html; charset=utf-8');
  assert.match(first.html, 'Test organization pediu os documentos abaixo');
  assert.match(first.html, 'Olá, Ana Sócia');
  assert.match(first.html, 'Olá! Precisamos destes documentos &#38; mais nada.');
  assert.match(first.html, 'A última alteração, &#60;registrada&#62;.');
  assert.match(first.html, `action="/c/${ana}/items/${contrato}"`);
  assert.not.match(first.html, 'Foto da fachada');
  assert.not.match(first.html, foto);
  await page(ana);
  assert.is(await opened(c.id), 1);
  const other = await page(beto);
  assert.match(other.html, 'Olá, Beto &#60;Contador&#62;');
  assert.match(other.html, 'Foto da fachada');
  assert.not.match(other.html, 'Contrato social');
  assert.is(await opened(c.id), 2);
  // The second recipient cannot send a file for the first one's item.
  const before = await streamLength(c.id);
  const foreign = await uploadTo(beto, contrato, await pdfWith(['CONTRATO SOCIAL']));
  assert.is(foreign.status, 404);
  assert.is(await streamLength(c.id), before);
});

test('an upload goes to the registry and the item, back to the page, then resolves by the verdict (AUTOMATIC)', async () => {
  const { c, ana, contrato } = await createCollection();
  const sent = await uploadTo(ana, contrato, await pdfWith(['CONTRATO SOCIAL', `CNPJ ${c.subjectDocument}`, 'Cláusula primeira: da denominação social']));
  assert.is(sent.status, 303, sent.html);
  assert.is(sent.location, `/c/${ana}?enviado=1`);
  const after = await page(`${ana}?enviado=1`);
  assert.match(after.html, 'Arquivo recebido. Ele está em análise.');
  // The offline analysis may already have answered: in analysis or approved, never pending.
  assert.match(after.html, /data-status="(SUBMITTED|PROCESSING|VALIDATED)"/, after.html.slice(-700));
  assert.not.match(after.html, `action="/c/${ana}/items/${contrato}"`, 'no form for an item sent');
  assert.is((await recorded(c.id)).filter((type) => type === 'ItemSubmitted').length, 1, 'recorded once, by the page (the process manager finds it done)');
  await eventually(async () => (await itemStatus(c.id, contrato)) === 'VALIDATED', { what: 'the item validated by the analysis' });
  assert.match((await page(ana)).html, 'data-status="VALIDATED">Aprovado');
});

test('in REVIEW mode the page keeps the item "em análise" until the operator decides', async () => {
  const { c, ana, contrato } = await createCollection('REVIEW');
  // A client that does not ask for HTML gets JSON instead of the redirect.
  const sent = await uploadTo(ana, contrato, await pdfWith(['CONTRATO SOCIAL', 'Cláusula primeira: da denominação social']), 'contrato.pdf', 'application/json');
  assert.is(sent.status, 200, sent.html);
  assert.equal(JSON.parse(sent.html).itemId, contrato);
  const waiting = await eventually(
    async () => {
      const status = await itemStatus(c.id, contrato);
      return ['MANUAL_REVIEW', 'AWAITING_OPERATOR'].includes(status) && status;
    },
    { what: 'the assessed item waiting for the operator' },
  );
  assert.match((await page(ana)).html, `data-status="${waiting}">Em análise`);
});

test('a file that is not PDF, JPEG or PNG is refused on the page and nothing is recorded', async () => {
  const { c, ana, contrato } = await createCollection();
  await page(ana);
  const before = await streamLength(c.id);
  const refused = await uploadTo(ana, contrato, Buffer.from('apenas texto, não é um documento'), 'contrato.pdf');
  assert.is(refused.status, 400);
  assert.match(refused.html, 'class="erro"');
  assert.match(refused.html, `action="/c/${ana}/items/${contrato}"`, 'the form is offered again');
  assert.is(await streamLength(c.id), before);
});

test("unknown and replaced links, and a canceled collection's, are 404 pages that say why, JSON for API clients; nothing recorded", async () => {
  const { c, ana, beto, contrato } = await createCollection();
  const unknown = await page('x'.repeat(43));
  assert.is(unknown.status, 404);
  assert.match(unknown.html, 'Este link não é válido');
  assert.equal((await call('GET', `/c/${'x'.repeat(43)}`)).body, { code: 404, message: 'Este link não é válido. Se você recebeu um link mais novo, use-o.' });

  const anaId = c.links[0]!.recipientId;
  const reissued = await call('POST', `/v1/collections/${c.id}/recipients/${anaId}/reissue-link`, {});
  assert.is(reissued.status, 200, JSON.stringify(reissued.body));
  const before = await streamLength(c.id);
  assert.is((await page(ana)).status, 404, 'the old version stops working');
  assert.is(await streamLength(c.id), before);
  const fresh = reissued.body.link.token as string;
  assert.is((await page(fresh)).status, 200);

  assert.is((await call('POST', `/v1/collections/${c.id}/cancel`, { reason: 'Cliente desistiu' })).status, 200);
  const recorded = await streamLength(c.id);
  for (const token of [fresh, beto]) {
    const closed = await page(token);
    assert.is(closed.status, 404);
    assert.match(closed.html, 'Esta solicitação foi encerrada');
  }
  assert.equal((await call('GET', `/c/${beto}`)).body, { code: 404, message: 'Esta solicitação foi encerrada e não recebe mais documentos.' });
  assert.is((await uploadTo(fresh, contrato, await pdfWith(['CONTRATO SOCIAL']))).status, 404);
  assert.is(await streamLength(c.id), recorded);
});

test.run();

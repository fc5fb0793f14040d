import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { collectionStream } from '../../domain/collection/events.ts';
import type { TestApp } from '../support/app.ts';
import { serviceWithTenant } from '../support/identity.ts';
import { pdfWith, until } from '../registry/support.ts';

const test = suite('recipient page: open, upload, isolation, closed links');
let app: TestApp;
const call = serviceWithTenant(test, (a) => {
  app = a;
});

interface Created {
  id: string;
  items: Array<{ id: string; key: string }>;
  links: Array<{ recipientId: string; token: string }>;
  recipients: Array<{ id: string; name: string }>;
}

async function createCollection(mode = 'AUTOMATIC'): Promise<{ c: Created; ana: string; beto: string; contrato: string; foto: string }> {
  const reply = await call('POST', '/v1/collections', {
    subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
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

async function uploadTo(token: string, itemId: string, bytes: Buffer, fileName = 'contrato.pdf') {
  const form = new FormData();
  form.append('file', new Blob([bytes]), fileName);
  const response = await fetch(`${app.url}/c/${token}/items/${itemId}`, { method: 'POST', body: form, redirect: 'manual', headers: { accept: 'text/html' } });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
}

const streamLength = async (collectionId: string) => (await app.app.store.readStream(collectionStream(collectionId))).length;
const actions = async (collectionId: string) => (await call('GET', `/v1/collections/${collectionId}/trail?take=500`)).body.entries.map((e: any) => e.action);
const itemStatus = async (collectionId: string, itemId: string) => (await call('GET', `/v1/collections/${collectionId}`)).body.items.find((i: any) => i.id === itemId).status;

test('the page shows the organization, the message and only this recipient\'s items, escaped; opening is recorded once', async () => {
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
  assert.equal((await actions(c.id)).filter((a: string) => a === 'RECIPIENT_OPENED').length, 1);
  const other = await page(beto);
  assert.match(other.html, 'Olá, Beto &#60;Contador&#62;');
  assert.match(other.html, 'Foto da fachada');
  assert.not.match(other.html, 'Contrato social');
  assert.equal((await actions(c.id)).filter((a: string) => a === 'RECIPIENT_OPENED').length, 2);
  // The second recipient cannot send a file for the first one's item.
  const before = await streamLength(c.id);
  const foreign = await uploadTo(beto, contrato, await pdfWith(['CONTRATO SOCIAL']));
  assert.is(foreign.status, 404);
  assert.is(await streamLength(c.id), before);
});

test('an upload goes to the registry and the item, back to the page "em análise", then resolves by the verdict (AUTOMATIC)', async () => {
  const { c, ana, contrato } = await createCollection();
  const sent = await uploadTo(ana, contrato, await pdfWith(['CONTRATO SOCIAL', 'Cláusula primeira: da denominação social']));
  assert.is(sent.status, 303, sent.html);
  assert.is(sent.location, `/c/${ana}?enviado=1`);
  const after = await page(`${ana}?enviado=1`);
  assert.match(after.html, 'Arquivo recebido. Ele está em análise.');
  assert.match(after.html, /data-status="(SUBMITTED|PROCESSING)">Em análise/);
  assert.not.match(after.html, `action="/c/${ana}/items/${contrato}"`, 'no form for an item in analysis');
  assert.ok((await actions(c.id)).includes('ITEM_SUBMITTED'));
  assert.is(await until(async () => (await itemStatus(c.id, contrato)) === 'VALIDATED', 'the item validated by the analysis'), true);
  assert.match((await page(ana)).html, 'data-status="VALIDATED">Aprovado');
});

test('a file that is not PDF, JPEG or PNG is refused on the page and nothing is recorded', async () => {
  const { c, ana, contrato } = await createCollection();
  await page(ana);
  const before = await streamLength(c.id);
  const refused = await uploadTo(ana, contrato, Buffer.from('apenas texto, não é um documento'), 'contrato.pdf');
  assert.is(refused.status, 400);
  assert.match(refused.html, 'class="erro"');
  assert.match(refused.html, `action="/c/${ana}/items/${contrato}"`, refused.html);
  assert.is(await streamLength(c.id), before);
});

test('unknown and replaced links are 404, a canceled collection\'s 410; pages in Portuguese, JSON for API clients, nothing recorded', async () => {
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
    assert.is(closed.status, 410);
    assert.match(closed.html, 'Esta solicitação foi encerrada');
  }
  assert.is((await call('GET', `/c/${beto}`)).status, 410);
  assert.is((await uploadTo(fresh, contrato, await pdfWith(['CONTRATO SOCIAL']))).status, 410);
  assert.is(await streamLength(c.id), recorded);
});

test.run();

import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CollectionMessages } from '../../domain/collection/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { newCnpj } from './support.ts';
import { companyForm } from './forms/fixtures.ts';
import { pdfWith } from '../registry/support.ts';
import { rejectedImages } from './identity/images.ts';

const FILES_PER_DAY = 2;
const BYTES_PER_DAY = 300_000;
const CHECKS_PER_DAY = 2;

const test = suite('recipient uploads: the link, the item and the caps before a byte of the body is read');
let app: TestApp;
let tenant: TestTenant;

test.before(async () => {
  app = await startTestApp({
    RECIPIENT_FILES_PER_ITEM_PER_DAY: String(FILES_PER_DAY),
    RECIPIENT_UPLOAD_BYTES_PER_DAY: String(BYTES_PER_DAY),
    RECIPIENT_IDENTITY_CHECKS_PER_ITEM_PER_DAY: String(CHECKS_PER_DAY),
  });
  tenant = await provisionTenant(app);
});
test.after(async () => {
  await app?.stop();
});

/** A collection with a DOCUMENT item (REVIEW: it stays unresolved while files arrive) and a FORM item, for one recipient. */
async function collection() {
  const reply = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
      items: [
        { key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' },
        { key: 'ficha', kind: 'FORM', title: 'Ficha cadastral', config: { form: companyForm() } },
      ],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com', itemKeys: ['contrato', 'ficha'] }],
      resolutionMode: 'REVIEW',
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const item = (key: string) => (reply.body.items as { id: string; key: string }[]).find((i) => i.key === key)!.id;
  return { id: reply.body.id as string, token: reply.body.links[0].token as string, contrato: item('contrato'), ficha: item('ficha') };
}

async function upload(token: string, itemId: string, bytes: Buffer) {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), 'contrato.pdf');
  const response = await fetch(`${app.url}/c/${token}/items/${itemId}`, { method: 'POST', body: form, headers: { accept: 'application/json' } });
  return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') };
}

const registryDocuments = async () => Number((await app.database.knex('events').where({ event_type: 'RegistryDocumentReceived' }).count({ n: '*' }))[0]!.n);
const itemStatus = async (collectionId: string, itemId: string) =>
  ((await app.call('GET', `/v1/collections/${collectionId}`, { token: tenant.token })).body.items as { id: string; status: string }[]).find((i) => i.id === itemId)!.status;

test('a file sent to an item that takes none (a FORM) is refused before it is read: no registry document, the item as it was', async () => {
  const c = await collection();
  const before = await registryDocuments();
  const pdf = await pdfWith(['CONTRATO SOCIAL']);
  for (let i = 0; i < 3; i++) {
    const refused = await upload(c.token, c.ficha, pdf);
    assert.equal([refused.status, refused.body.message], [400, CollectionMessages.itemNotAFile]);
  }
  // Time for an analysis of a stored file to reach the item, as it did when refused files were kept.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.is(await registryDocuments(), before);
  assert.is(await itemStatus(c.id, c.ficha), 'PENDING');
});

test("files per item: past the day's count, 429 with Retry-After, and the file is not stored", async () => {
  const c = await collection();
  const pdf = await pdfWith(['CONTRATO SOCIAL', 'Cláusula primeira: da denominação social']);
  for (let i = 0; i < FILES_PER_DAY; i++) assert.is((await upload(c.token, c.contrato, pdf)).status, 200);
  const before = await registryDocuments();
  const refused = await upload(c.token, c.contrato, pdf);
  assert.equal([refused.status, refused.body], [429, { code: 429, message: CollectionMessages.filesPerItemPerDay }]);
  const seconds = Number(refused.retryAfter);
  assert.ok(seconds > 86_000 && seconds <= 86_400, `Retry-After ${refused.retryAfter}`);
  assert.is(await registryDocuments(), before);
});

test('bytes per link: a body past what is left of the day is refused by its length, 429 with Retry-After, nothing stored', async () => {
  const c = await collection();
  const before = await registryDocuments();
  const refused = await upload(c.token, c.contrato, Buffer.concat([await pdfWith(['CONTRATO SOCIAL']), Buffer.alloc(BYTES_PER_DAY)]));
  assert.equal([refused.status, refused.body], [429, { code: 429, message: CollectionMessages.uploadBytesPerDay }]);
  assert.ok(Number(refused.retryAfter) > 0, `Retry-After ${refused.retryAfter}`);
  assert.is(await registryDocuments(), before);
  // What the link has left still goes through.
  assert.is((await upload(c.token, c.contrato, await pdfWith(['CONTRATO SOCIAL']))).status, 200);
});

test('bytes per link, uploads sent at once: the reservation is one statement, so only what fits passes and refused bytes are not counted', async () => {
  const reply = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
      items: ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key, kind: 'DOCUMENT', title: `Contrato ${key}`, expectedType: 'CONTRATO_SOCIAL' })),
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      resolutionMode: 'REVIEW',
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const token = reply.body.links[0].token as string;
  const [last, ...items] = (reply.body.items as { id: string }[]).map((i) => i.id);
  const pdf = await pdfWith(['CONTRATO SOCIAL']);
  // Four bodies of 140 KB at once against 300 KB a day: two fit, two do not.
  const large = Buffer.concat([pdf, Buffer.alloc(140_000 - pdf.length, 0x20)]);
  const statuses = (await Promise.all(items.slice(0, 4).map((itemId) => upload(token, itemId!, large)))).map((r) => r.status);
  assert.is(statuses.filter((s) => s === 429).length, 2, `statuses ${statuses}`);
  // What is left of the day (about 20 KB) still takes a small file: the refused bytes were never counted.
  const small = await upload(token, last!, pdf);
  assert.is(small.status, 200, JSON.stringify(small.body));
});

test("identity checks per item: past the day's count, 429 with Retry-After before the images are read, and no check started", async () => {
  const reply = await app.call('POST', '/v1/collections', {
    token: tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: newCnpj() },
      items: [{ key: 'identidade', kind: 'IDENTITY', title: 'Documento com foto e selfie' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      notificationChannel: 'NONE',
      send: true,
    },
  });
  assert.is(reply.status, 201, JSON.stringify(reply.body));
  const { id, links, items } = reply.body;
  const check = async () => {
    const images = rejectedImages();
    const form = new FormData();
    form.set('document', new Blob([new Uint8Array(images.document)]), 'doc.png');
    form.set('selfie', new Blob([new Uint8Array(images.selfie)]), 'selfie.png');
    const response = await fetch(`${app.url}/c/${links[0].token}/items/${items[0].id}/identity`, { method: 'POST', body: form, headers: { accept: 'application/json' } });
    return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') };
  };
  // A REJECTED item may be tried again, each try a paid call to the provider: only so many a day.
  for (let i = 0; i < CHECKS_PER_DAY; i++) {
    const tried = await check();
    assert.equal([tried.status, tried.body.status], [200, 'REJECTED'], JSON.stringify(tried.body));
  }
  const started = async () =>
    Number(
      (
        await app.database
          .knex('events')
          .where({ stream_name: `collection-${id}`, event_type: 'IdentityCheckStarted' })
          .count({ n: '*' })
      )[0]!.n,
    );
  assert.is(await started(), CHECKS_PER_DAY);
  const refused = await check();
  assert.equal([refused.status, refused.body], [429, { code: 429, message: CollectionMessages.identityChecksPerDay }]);
  const seconds = Number(refused.retryAfter);
  assert.ok(seconds > 86_000 && seconds <= 86_400, `Retry-After ${refused.retryAfter}`);
  assert.is(await started(), CHECKS_PER_DAY);
});

/**
 * A large multipart body sent slowly: the reply's status once it comes, and how many bytes had
 * been sent by then. The server answering before the body ends is what shows it did not read it.
 */
function postSlowly(path: string): Promise<{ status: number; sentBytes: number; totalBytes: number }> {
  const boundary = 'x-boundary';
  const totalBytes = 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let timer: NodeJS.Timeout | undefined;
    const req = request(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(totalBytes), accept: 'application/json' },
    });
    req.on('response', (response) => {
      clearInterval(timer);
      resolve({ status: response.statusCode!, sentBytes, totalBytes });
      response.resume();
      req.destroy();
    });
    // After the answer the client destroys the request itself; an error before any answer (the
    // connection reset while sending) must fail the test, not leave it waiting for ever.
    req.on('error', (error) => {
      clearInterval(timer);
      reject(new Error(`no answer; the request failed after ${sentBytes} bytes: ${error.message}`));
    });
    const head = Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="a.pdf"\r\ncontent-type: application/pdf\r\n\r\n%PDF-1.4\n`);
    req.write(head);
    sentBytes += head.length;
    // 64 KB every 50 ms: the whole body would take over 12 s.
    timer = setInterval(() => {
      if (req.destroyed) return clearInterval(timer);
      req.write(Buffer.alloc(64 * 1024, 0x20));
      sentBytes += 64 * 1024;
      if (sentBytes >= totalBytes - 64 * 1024) {
        clearInterval(timer);
        reject(new Error('the whole body was sent before any reply'));
      }
    }, 50);
  });
}

test('a made-up link token: 404 before the body is read (the reply comes while the client is still sending)', async () => {
  const c = await collection();
  const unknown = await postSlowly(`/c/${'x'.repeat(43)}/items/${c.contrato}`);
  assert.is(unknown.status, 404);
  assert.ok(unknown.sentBytes < unknown.totalBytes / 4, `answered after ${unknown.sentBytes} bytes`);
  const identity = await postSlowly(`/c/${'x'.repeat(43)}/items/${c.contrato}/identity`);
  assert.is(identity.status, 404);
  assert.ok(identity.sentBytes < identity.totalBytes / 4, `answered after ${identity.sentBytes} bytes`);
  // And the item of a real link that takes no file: refused as early.
  const form = await postSlowly(`/c/${c.token}/items/${c.ficha}`);
  assert.is(form.status, 400);
  assert.ok(form.sentBytes < form.totalBytes / 4, `answered after ${form.sentBytes} bytes`);
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { assertLoopStaysFree, LOOP_BUDGET_MS } from '../support/event-loop.ts';
import { exposedTenant } from './support.ts';

/**
 * Issue 33, section 1: nothing anyone may send to a public or recipient route holds the event
 * loop: each request may hold it at most LOOP_BUDGET_MS longer than a quiet second does
 * (test/support/event-loop.ts, which counts the main thread's CPU time, so a loaded machine does
 * not fail it). Sizes are chosen so that the code before the fix held the loop for a few
 * hundred milliseconds to a few seconds, not for hours.
 */
const test = suite('event loop: adversarial input on public and recipient routes');
let app: TestApp;
let templateId: string;
let collection: any;

// `a@` and dots: the old e-mail pattern tried every split of the dots between its two quantifiers.
const dottedEmail = (dots: number) => `a@${'.'.repeat(dots)}@`;
// Nested quantifiers: on a backtracking engine each further `a` doubles the time of a refusal.
const EXPONENTIAL = '^(a+)+$';
const exponentialVictim = (length: number) => `${'a'.repeat(length)}!`;

const urlencoded = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

function post(path: string, body: string, contentType = 'application/x-www-form-urlencoded') {
  const accept = contentType === 'application/json' ? 'application/json' : 'text/html';
  return fetch(`${app.url}${path}`, { method: 'POST', redirect: 'manual', headers: { accept, 'content-type': contentType, 'x-forwarded-for': '203.0.113.9' }, body });
}

async function assertResponsive(what: string, action: () => Promise<Response>): Promise<Response> {
  // Once unmeasured: a code path's first run (compiling, first page render) is not what is asked
  // here; a pattern or a parse that holds the loop holds it every time.
  await (await action()).arrayBuffer();
  const result = await assertLoopStaysFree(what, async () => {
    const reply = await action();
    await reply.clone().arrayBuffer();
    return reply;
  });
  assert.ok(result.status < 500, `${what}: ${result.status}`);
  return result;
}

test.before(async () => {
  app = await startTestApp({ PUBLIC_FORM_PER_ADDRESS_PER_HOUR: '1000', PUBLIC_FORM_DAILY_CEILING: '1000' });
  ({ templateId, collection } = await exposedTenant(app, 'Exposta', EXPONENTIAL));
  // The form's validator is built once per definition, on first use: not what is measured here.
  const warm = await post(`/c/${collection.links[0].token}/items/${collection.items[0].id}/form`, urlencoded({ 'answers[codigo]': 'b' }));
  assert.is(warm.status, 400);
});
test.after(async () => {
  await app?.stop();
});

test('public form: an e-mail of 15,000 dots is refused as an e-mail without holding the loop', async () => {
  const reply = await assertResponsive('public form e-mail', () =>
    post(`/formulario/${templateId}`, urlencoded({ nome: 'Maria da Silva', documento: '123.456.789-09', email: dottedEmail(15_000), telefone: '' })),
  );
  assert.is(reply.status, 400);
  assert.match(await reply.text(), 'data-field="email"');
});

test('public form: a body over 16 KB is refused with 413 and the error body before it is parsed', async () => {
  const big = urlencoded({ nome: 'Maria da Silva', documento: '123.456.789-09', email: dottedEmail(40_000) });
  const reply = await assertResponsive('public form 40 KB', () => post(`/formulario/${templateId}`, big));
  assert.is(reply.status, 413);
  assert.equal(await reply.json(), { code: 413, message: Messages.bodyTooLarge });
  // Chunked, with no length announced: counted while read, the same answer.
  const chunked = await assertResponsive('public form 1 MB chunked', () =>
    fetch(`${app.url}/formulario/${templateId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new Blob([`nome=${'x'.repeat(1_000_000)}`]).stream(),
      duplex: 'half',
    } as RequestInit),
  );
  assert.is(chunked.status, 413);
  assert.equal(await chunked.json(), { code: 413, message: Messages.bodyTooLarge });
  // What a person sends still opens a collection.
  const person = await post(`/formulario/${templateId}`, urlencoded({ nome: 'Maria da Silva', documento: '123.456.789-09', email: 'maria@example.com', telefone: '' }));
  assert.is(person.status, 303);
});

test("recipient page: an answer built against the tenant's nested-quantifier pattern is refused in linear time", async () => {
  const path = `/c/${collection.links[0].token}/items/${collection.items[0].id}/form`;
  for (const answer of [exponentialVictim(28), exponentialVictim(9_999)]) {
    const reply = await assertResponsive(`FORM answer of ${answer.length}`, () => post(path, urlencoded({ 'answers[codigo]': answer })));
    assert.is(reply.status, 400);
    assert.match(await reply.text(), 'O campo Código não está no formato esperado.');
  }
  const json = await assertResponsive('FORM answer as JSON', () => post(path, JSON.stringify({ answers: { codigo: exponentialVictim(28) } }), 'application/json'));
  assert.is(json.status, 400);
  assert.is((await json.json()).message, 'O campo Código não está no formato esperado.');
});

test(`every other public and recipient route: adversarial tokens, fields and e-mails never hold the loop ${LOOP_BUDGET_MS} ms`, async () => {
  const token = collection.links[0].token;
  const long = 'a'.repeat(8_000);
  const requests: Array<[string, () => Promise<Response>]> = [
    ['recipient page, long token', () => fetch(`${app.url}/c/${long}`, { headers: { accept: 'text/html' } })],
    ['recipient page, dotted token', () => fetch(`${app.url}/c/${encodeURIComponent(dottedEmail(6_000))}`, { headers: { accept: 'text/html' } })],
    ['consent, adversarial fields', () => post(`/c/${token}/items/${collection.items[1].id}/consent`, urlencoded({ hash: dottedEmail(50_000), aceito: exponentialVictim(50_000) }))],
    ['consent, unknown token', () => post(`/c/${long}/items/${collection.items[1].id}/consent`, urlencoded({ hash: 'f'.repeat(64) }))],
    ['public form page, unknown template', () => fetch(`${app.url}/formulario/${'f'.repeat(24)}`, { headers: { accept: 'text/html' } })],
    ['public form, malformed template id', () => post(`/formulario/${dottedEmail(2_000)}`, urlencoded({ email: dottedEmail(10_000) }))],
    ['offer page, long token', () => fetch(`${app.url}/oferta/${long}`, { headers: { accept: 'text/html' } })],
    ['offer choice, adversarial fields', () => post(`/oferta/${long}/escolha`, urlencoded({ oferta: dottedEmail(50_000), email: dottedEmail(50_000) }))],
    ['sign-in, dotted e-mail', () => post('/console/entrar', urlencoded({ email: dottedEmail(100_000), senha: exponentialVictim(100_000), csrf: long }))],
    ['sign-in page', () => fetch(`${app.url}/console/entrar?voltar=${encodeURIComponent(dottedEmail(4_000))}`, { headers: { accept: 'text/html' } })],
  ];
  for (const [what, request] of requests) await assertResponsive(what, request);
});

test.run();

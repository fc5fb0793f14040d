import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { assertLoopStaysFree, LOOP_BUDGET_MS } from '../support/event-loop.ts';
import { exposedTenant } from './support.ts';

/**
 * Issue 33, section 1: hostile input sent to every public and recipient route at once (/c/,
 * /oferta/, /formulario/, OAuth registration, console sign-in) does not hold the service's event
 * loop, so /health keeps answering. What is measured is the loop itself, in this process, which
 * runs the service (test/support/event-loop.ts), not the wall clock of answers on a shared machine.
 */
const test = suite('event loop: every public and recipient route under hostile input at once');
let app: TestApp;
let templateId: string;
let token: string;
let formItem: string;
let consentItem: string;

const MB = 1024 * 1024;
// `a@` and dots: a pattern whose two quantifiers can trade the dots tries every split.
const dotted = (dots: number) => `a@${'.'.repeat(dots)}@`;
// Nested quantifiers: on a backtracking engine each further `a` doubles the time of a refusal.
const NESTED = '^(a+)+$';
const victim = (length: number) => `${'a'.repeat(length)}!`;
const long = 'a'.repeat(8_000);
const urlencoded = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** Status of the reply, or `closed` when the service refused by closing the connection while the body was still going out. */
async function outcome(path: string, init: RequestInit = {}): Promise<number | 'closed'> {
  try {
    const reply = await fetch(`${app.url}${path}`, { redirect: 'manual', ...init, headers: { accept: 'text/html', ...(init.headers as Record<string, string>) } });
    await reply.arrayBuffer();
    return reply.status;
  } catch {
    return 'closed';
  }
}
const form = (path: string, body: string | Blob) =>
  outcome(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    ...(typeof body === 'string' ? { body } : { body: body.stream(), duplex: 'half' }),
  } as RequestInit);
const json = (path: string, body: string) => outcome(path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
const upload = (path: string, body: FormData) => outcome(path, { method: 'POST', body });

/**
 * The hostile bodies, built once before anything is measured: making megabytes of text is the
 * test's own work on the same loop, not the service's.
 */
function hostileBodies() {
  const megabyte = 'x'.repeat(MB);
  const file = new FormData();
  file.append('file', new Blob([Buffer.alloc(MB, 0x25)], { type: 'application/pdf' }), 'x.pdf');
  return {
    dottedEmail: urlencoded({ nome: 'Maria da Silva', documento: '123.456.789-09', email: dotted(15_000) }),
    megabyteForm: urlencoded({ nome: megabyte }),
    megabyteChunked: new Blob([`email=${dotted(MB)}`]),
    victim: urlencoded({ 'answers[codigo]': victim(28) }),
    longVictim: JSON.stringify({ answers: { codigo: victim(9_999) } }),
    megabyteAnswer: urlencoded({ 'answers[codigo]': megabyte }),
    nestedJson: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
    consent: urlencoded({ hash: dotted(50_000), aceito: victim(50_000) }),
    file,
    offer: urlencoded({ oferta: dotted(MB) }),
    registration: JSON.stringify({ client_name: dotted(50_000), redirect_uris: [`https://${'a.'.repeat(30_000)}example/cb`], token_endpoint_auth_method: 'none' }),
    megabyteRegistration: JSON.stringify({ client_name: megabyte, redirect_uris: ['http://127.0.0.1:9/cb'] }),
    signIn: urlencoded({ email: dotted(100_000), senha: victim(100_000), csrf: long }),
    megabyteSignIn: urlencoded({ email: megabyte }),
  };
}
let bodies: ReturnType<typeof hostileBodies>;

/** One of each hostile request, all in flight together. */
function everyRoute(): Array<[string, Promise<number | 'closed'>]> {
  const b = bodies;
  return [
    ['public form: 15,000-dot e-mail', form(`/formulario/${templateId}`, b.dottedEmail)],
    ['public form: 1 MB', form(`/formulario/${templateId}`, b.megabyteForm)],
    ['public form: 1 MB chunked', form(`/formulario/${templateId}`, b.megabyteChunked)],
    ['public form page: dotted id', outcome(`/formulario/${encodeURIComponent(dotted(2_000))}`)],
    ['recipient page: long token', outcome(`/c/${long}`)],
    ['recipient FORM: nested-pattern victim', form(`/c/${token}/items/${formItem}/form`, b.victim)],
    ['recipient FORM: long victim as JSON', json(`/c/${token}/items/${formItem}/form`, b.longVictim)],
    ['recipient FORM: 1 MB', form(`/c/${token}/items/${formItem}/form`, b.megabyteAnswer)],
    ['recipient FORM: nested JSON', json(`/c/${token}/items/${formItem}/form`, b.nestedJson)],
    ['recipient consent: dotted fields', form(`/c/${token}/items/${consentItem}/consent`, b.consent)],
    ['recipient upload: 1 MB to a made-up token', upload(`/c/${long.slice(0, 200)}/items/${formItem}`, b.file)],
    ['recipient upload: 1 MB to a FORM item', upload(`/c/${token}/items/${formItem}`, b.file)],
    ['offer page: long token', outcome(`/oferta/${long}`)],
    ['offer choice: 1 MB of dots', form(`/oferta/${long.slice(0, 200)}/escolha`, b.offer)],
    ['OAuth registration: dotted names and redirect', json('/oauth/reg', b.registration)],
    ['OAuth registration: 1 MB', json('/oauth/reg', b.megabyteRegistration)],
    ['OAuth registration: nested JSON', json('/oauth/reg', b.nestedJson)],
    ['console sign-in: dotted e-mail', form('/console/entrar', b.signIn)],
    ['console sign-in: 1 MB', form('/console/entrar', b.megabyteSignIn)],
    ['console sign-in page: dotted return path', outcome(`/console/entrar?voltar=${encodeURIComponent(dotted(4_000))}`)],
  ];
}

/** Every hostile request at once, with /health asked throughout; the outcomes and the health answers seen. */
async function attack(): Promise<{ outcomes: Array<[string, number | 'closed']>; health: number[] }> {
  const requests = everyRoute();
  let running = true;
  const health: number[] = [];
  const asking = (async () => {
    while (running) health.push((await outcome('/health')) as number);
  })();
  const outcomes = await Promise.all(requests.map(async ([what, reply]) => [what, await reply] as [string, number | 'closed']));
  running = false;
  await asking;
  return { outcomes, health };
}

test.before(async () => {
  bodies = hostileBodies();
  app = await startTestApp({ PUBLIC_FORM_PER_ADDRESS_PER_HOUR: '1000', PUBLIC_FORM_DAILY_CEILING: '1000', PUBLIC_RATE_LIMIT_PER_ADDRESS: '10000', AUTH_FAILURES_PER_ADDRESS: '10000' });
  const { templateId: id, collection } = await exposedTenant(app, 'Sitiada', NESTED);
  templateId = id;
  token = collection.links[0].token;
  [formItem, consentItem] = collection.items.map((item: { id: string }) => item.id);
});
test.after(async () => {
  await app?.stop();
});

test(`every route at once: no answer is a 500, /health answers throughout, and the loop is never held ${LOOP_BUDGET_MS} ms beyond a quiet moment`, async () => {
  // Once unmeasured: first runs compile validators, render pages and warm the JIT.
  await attack();
  const result = await assertLoopStaysFree('every route at once', attack);
  for (const [what, status] of result.outcomes) assert.ok(status === 'closed' || (status >= 400 && status < 500), `${what}: ${status}`);
  assert.ok(result.health.length > 0 && result.health.every((status) => status === 200), `/health: ${result.health.join(',')}`);
});

test.run();

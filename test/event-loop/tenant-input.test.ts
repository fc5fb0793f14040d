import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { CollectionMessages as M } from '../../domain/collection/messages.ts';
import { EXPRESSION_BOUNDS } from '../../domain/credit-policy/rule-engine.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { authorizedMcp } from '../support/mcp.ts';
import { assertLoopStaysFree } from '../support/event-loop.ts';
import { field } from '../collection/forms/fixtures.ts';
import type { ConsoleBrowser } from '../support/console-browser.ts';

/**
 * Issue 33, section 1: what a tenant writes (a FORM field's pattern, a policy's JSON Logic) and
 * what an agent sends to an MCP tool cannot hold the event loop or spin on the database.
 */
const test = suite('event loop: tenant-written patterns and rules, MCP tool arguments');
let app: TestApp;
let tenant: TestTenant;
let browser: ConsoleBrowser;

test.before(async () => {
  app = await startTestApp();
  ({ tenant, browser } = await signedInTenant(app, { name: 'Banco Inquieto', email: 'rui@inquieto.example', password: 'uma senha bem longa' }));
});
test.after(async () => {
  await app?.stop();
});

const call = (method: string, path: string, body?: unknown) => app.call(method, path, { token: tenant.token, body });

async function assertResponsive<T>(what: string, action: () => Promise<T>): Promise<T> {
  // Once unmeasured: a first run compiles (a new form's validator, a route's first request); a
  // pattern or an expression that holds the loop holds it every time. Refusals change nothing.
  await action();
  return assertLoopStaysFree(what, action);
}

const formCollection = (pattern: string, suggested: Record<string, string> = {}) => ({
  subject: { name: 'Padaria Padrão Ltda', document: '11222333000181' },
  items: [{ key: 'ficha', kind: 'FORM', title: 'Ficha', config: { form: { fields: [field('codigo', { validation: { pattern } })], suggested } } }],
  recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
  notificationChannel: 'NONE',
});

test("a collection whose suggestion meets its own nested-quantifier pattern: the suggestion left out without holding the loop; RE2's refusals are the pattern's", async () => {
  const reply = await assertResponsive('collection with ^(a+)+$', () => call('POST', '/v1/collections', formCollection('^(a+)+$', { codigo: `${'a'.repeat(30)}!` })));
  // A suggestion that does not fit its field is left out, as before; only now it takes no time.
  assert.is(reply.status, 201, JSON.stringify(reply.body).slice(0, 300));
  assert.equal(reply.body.items[0].details.form.suggested, {});
  // Lookaround and backreferences need backtracking: a pattern using them is not a pattern here.
  for (const pattern of ['^(?=a)a$', '^(a)\\1$']) {
    const refused = await call('POST', '/v1/collections', formCollection(pattern));
    assert.equal([refused.status, refused.body.message], [400, M.formBadPattern('codigo')], pattern);
  }
  // JavaScript's escapes keep working on RE2.
  assert.is((await call('POST', '/v1/collections', formCollection('^\\u00e9\\d{2}$', { codigo: 'é12' }))).status, 201);
});

const policyWith = (condition: unknown) => ({
  ...DEMO_CNPJ_POLICY,
  name: 'Política com regra extra',
  groups: [...DEMO_CNPJ_POLICY.groups, { id: 'extra', name: 'Extra', rules: [{ id: 'extra-1', name: 'Regra extra', description: null, condition, onFail: 'DENY' }] }],
});
const numbers = (count: number) => Array.from({ length: count }, (_, i) => i);
// Each level iterates a list built from the item above it: json-logic-engine runs it while building.
const nestedSome = (levels: number, items: number): unknown =>
  levels === 0 ? { '<': [{ var: '' }, -1] } : { some: [levels === 3 ? numbers(items) : { merge: [numbers(items), { var: '' }] }, nestedSome(levels - 1, items)] };

test('policy rules are bounded when saved: nesting, list length, size, reduce steps, pipe; each refused with a Portuguese 400', async () => {
  const { iteratorNesting, listItems, elements } = EXPRESSION_BOUNDS;
  const refusals: Array<[string, unknown, string]> = [
    ['three nested iterators over 300 numbers', nestedSome(3, 300), `A regra "extra-1" aninha mais de ${iteratorNesting} operadores de iteração`],
    ['a list over the bound', { in: [{ var: 'inputs.uf' }, numbers(listItems + 1)] }, `A regra "extra-1" tem uma lista com mais de ${listItems} itens.`],
    ['an expression over the bound', { and: numbers(elements / 4).map((n) => ({ '==': [{ var: 'inputs.x' }, n] })) }, `A regra "extra-1" tem mais de ${elements} elementos`],
    [
      'a reduce that doubles its accumulator',
      { reduce: [numbers(200), { merge: [{ var: 'accumulator' }, { var: 'accumulator' }] }, [1]] },
      'A regra "extra-1" lê o acumulador de um reduce mais de uma vez no mesmo passo.',
    ],
    ['an iterator in a reduce step', { reduce: [numbers(10), { map: [{ var: 'accumulator' }, 1] }, [1]] }, 'A regra "extra-1" usa um operador de iteração dentro do passo de um reduce.'],
    ['pipe', { pipe: [[1], { merge: [{ var: '' }, { var: '' }] }] }, 'A regra "extra-1": o operador "pipe" não é aceito em políticas.'],
  ];
  for (const [what, condition, message] of refusals) {
    const reply = await assertResponsive(what, () => call('POST', '/credit-policy/policy', policyWith(condition)));
    assert.is(reply.status, 400, `${what}: ${JSON.stringify(reply.body).slice(0, 200)}`);
    assert.ok(reply.body.message.startsWith(message), `${what}: ${reply.body.message}`);
  }
  // What real rules do stays possible: two iterators, a reduce summing, a list of codes.
  const accepted = await call(
    'POST',
    '/credit-policy/policy',
    policyWith({
      and: [
        { none: [{ var: 'inputs.socios' }, { some: [{ var: 'restricoes' }, { '==': [{ var: '' }, 'OBITO'] }] }] },
        { '<': [{ reduce: [{ var: 'inputs.dividas' }, { '+': [{ var: 'accumulator' }, { var: 'current.valor' }] }, 0] }, 100000] },
        { '!': { in: [{ var: 'inputs.uf' }, numbers(listItems).map(String)] } },
      ],
    }),
  );
  assert.is(accepted.status, 200, JSON.stringify(accepted.body).slice(0, 300));
});

test("MCP: criar_relatorio's aguardarSegundos is validated against its declared schema before the report is asked", async () => {
  const policyId = (await call('POST', '/credit-policy/policy', DEMO_CNPJ_POLICY)).body.id;
  const { client } = await authorizedMcp(app, browser);
  const reportsBefore = (await call('GET', '/v2/report')).body.total;
  const cases: Array<[unknown, string]> = [
    [3_000_000, 'aguardarSegundos must not be greater than 120'],
    [-5, 'aguardarSegundos must not be less than 0'],
    [0.001, 'aguardarSegundos must be an integer number'],
    ['x', 'aguardarSegundos must be an integer number'],
  ];
  for (const [value, message] of cases) {
    const result: any = await client.callTool({ name: 'criar_relatorio', arguments: { document: '11222333000181', type: 'cnpj', policyId, aguardarSegundos: value } });
    assert.ok(result.isError, `${String(value)}: ${JSON.stringify(result).slice(0, 200)}`);
    assert.equal(result.structuredContent, { code: 400, message }, String(value));
  }
  assert.is((await call('GET', '/v2/report')).body.total, reportsBefore, 'no report asked for a refused call');
  const waited: any = await client.callTool({ name: 'criar_relatorio', arguments: { document: '11222333000181', type: 'cnpj', policyId, aguardarSegundos: 0 } });
  assert.not.ok(waited.isError, JSON.stringify(waited).slice(0, 300));
  await client.close();
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { CLIENT_REGISTRATIONS_PER_HOUR } from '../../application/identity/limits.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { ConsoleBrowser, signedInTenant } from '../support/console-browser.ts';
import type { TestTenant } from '../support/identity.ts';
import { askAuthorization, authorizedMcp, connectMcp, consentInBrowser, exchangeCode, MemoryOAuthClient } from '../support/mcp.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  browser: ConsoleBrowser;
  policyId: string;
}
const test = suite<Ctx>('mcp: the connector at /mcp with OAuth 2.1 (PKCE, dynamic registration) through the console sign-in');

const CNPJ = '11222333000181';
const text = (result: any) => JSON.parse(result.content[0].text);

test.before(async (ctx) => {
  ctx.app = await startTestApp();
  ({ tenant: ctx.tenant, browser: ctx.browser } = await signedInTenant(ctx.app, { name: 'Banco Agente', email: 'ana@agente.example', password: 'uma senha bem longa' }));
  ctx.policyId = (await ctx.app.call('POST', '/credit-policy/policy', { token: ctx.tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test('without a token: 401 with the RFC 9728 challenge, and both metadata documents lead to the authorization server', async ({ app }) => {
  const reply = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.is(reply.status, 401);
  assert.equal(await reply.json(), { code: 401, message: Messages.invalidToken });
  const challenge = reply.headers.get('www-authenticate')!;
  assert.match(challenge, `Bearer resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp"`);

  const resource = await (await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`)).json();
  assert.is(resource.resource, `${app.url}/mcp`);
  assert.equal(resource.authorization_servers, [`${app.url}/oauth`]);

  const server = await (await fetch(`${app.url}/.well-known/oauth-authorization-server/oauth`)).json();
  assert.is(server.issuer, `${app.url}/oauth`);
  assert.is(server.authorization_endpoint, `${app.url}/oauth/auth`);
  assert.is(server.token_endpoint, `${app.url}/oauth/token`);
  assert.is(server.registration_endpoint, `${app.url}/oauth/reg`);
  assert.equal(server.code_challenge_methods_supported, ['S256']);
  assert.equal(server.response_types_supported, ['code'], 'OAuth 2.1: no implicit flow');
  assert.not.ok(server.grant_types_supported.includes('implicit'));

  const forged = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { authorization: 'Bearer nao-existe', 'content-type': 'application/json' }, body: '{}' });
  assert.is(forged.status, 401);
  assert.match(forged.headers.get('www-authenticate')!, 'error="invalid_token"');
});

test('a page of another site cannot reach the connector (DNS rebinding)', async ({ app }) => {
  const reply = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { origin: 'http://rebind.example', 'content-type': 'application/json' }, body: '{}' });
  assert.is(reply.status, 403);
  assert.equal(await reply.json(), { code: 403, message: Messages.foreignOrigin });
});

test('the full authorization-code flow with PKCE, then a tool call that creates a report and waits for its decision', async ({ app, browser, policyId, tenant }) => {
  const { client, oauth } = await authorizedMcp(app, browser);
  assert.ok(oauth.information?.client_id, 'registered dynamically');
  assert.ok(oauth.saved?.access_token, 'token issued');
  assert.ok(oauth.saved?.refresh_token, 'refresh token issued');
  // Registration is open: a client lives 30 days, and 30 days beyond its latest grant.
  const registered = await app.app.db('oauth_artifacts').where({ model: 'Client', id: oauth.information!.client_id }).first('expires_at');
  const grant = await app.app.db('oauth_artifacts').where({ model: 'Grant' }).whereRaw("payload->>'clientId' = ?", [oauth.information!.client_id]).first('expires_at');
  const days = (from: Date, to: Date) => Math.round((to.getTime() - from.getTime()) / 86_400_000);
  assert.is(days(grant.expires_at, registered.expires_at), 30);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of [
    'listar_politicas',
    'criar_relatorio',
    'ler_relatorio',
    'ler_explicacao',
    'ler_insights_e_comite',
    'criar_proposta',
    'simular_preco',
    'ler_trilha_coleta',
    'listar_listas_triagem',
  ])
    assert.ok(names.includes(name), name);
  const lists: any = await client.callTool({ name: 'listar_listas_triagem', arguments: {} });
  assert.not.ok(lists.isError, JSON.stringify(lists));
  assert.equal(lists.structuredContent, (await app.call('GET', '/v1/screening/lists', { token: tenant.token })).body, 'the route, as the API answers it');
  assert.ok(lists.structuredContent.lists.length > 0);
  const create = tools.find((t) => t.name === 'criar_relatorio')!;
  assert.equal(create.inputSchema.required?.sort(), ['document', 'policyId', 'type']);
  assert.ok((create.inputSchema.properties as any).aguardarSegundos);

  const policies = text(await client.callTool({ name: 'listar_politicas', arguments: {} }));
  assert.ok(JSON.stringify(policies).includes(policyId));
  const created: any = await client.callTool({ name: 'criar_relatorio', arguments: { document: CNPJ, type: 'cnpj', policyId, aguardarSegundos: 30 } });
  assert.not.ok(created.isError, JSON.stringify(created));
  const report = created.structuredContent;
  assert.is(report.reportProgress.isFinalized, true);
  assert.is(report.document, CNPJ);
  // Stateless: no stream to open, no session to end.
  const stream = await fetch(`${app.url}/mcp`, { headers: { authorization: `Bearer ${oauth.saved!.access_token}`, accept: 'text/event-stream' } });
  assert.is(stream.status, 405);
  // An MCP token is for /mcp only: the API does not take it.
  const viaApi = await app.call('GET', `/v2/report/${report.id}`, { token: oauth.saved!.access_token });
  assert.is(viaApi.status, 401);
  const explanation: any = await client.callTool({ name: 'ler_explicacao', arguments: { id: report.id } });
  assert.not.ok(explanation.isError, JSON.stringify(explanation));
  assert.is(explanation.structuredContent.type.value, 'CREDIT_POLICY');
  await client.close();
});

test('a tool the user may not use is refused with the API message, and not listed', async ({ app }) => {
  const { browser } = await signedInTenant(app, { name: 'Só Relatórios', email: 'caio@relatorios.example', password: 'uma senha bem longa', modules: ['reports'] });
  const { client } = await authorizedMcp(app, browser);
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.not.ok(names.includes('criar_proposta'));
  const refused: any = await client.callTool({ name: 'criar_proposta', arguments: { document: CNPJ } });
  assert.is(refused.isError, true);
  assert.equal(text(refused), { code: 403, message: Messages.proposalsModuleDisabled });
  const invalid: any = await client.callTool({ name: 'ler_relatorio', arguments: { id: 'nao-e-id' } });
  assert.is(invalid.isError, true);
  assert.is(text(invalid).code, 400);
  await client.close();
});

test("another organization's token does not reach this organization's reports", async ({ app, tenant, policyId }) => {
  const report = await app.call('POST', '/v2/report', { token: tenant.token, body: { document: CNPJ, type: 'cnpj', policyId } });
  const { browser } = await signedInTenant(app, { name: 'Outro Banco', email: 'bia@outro.example', password: 'uma senha bem longa' });
  const { client } = await authorizedMcp(app, browser);
  const refused: any = await client.callTool({ name: 'ler_relatorio', arguments: { id: report.body.id } });
  assert.is(refused.isError, true);
  assert.equal(text(refused), { code: 404, message: Messages.reportNotFound });
  await client.close();
});

test('the user signs in first when the browser has no console session, and comes back to the consent', async ({ app }) => {
  const oauth = new MemoryOAuthClient('Agente sem sessão');
  const authorization = await askAuthorization(app, oauth);
  const browser = new ConsoleBrowser(app);
  const interaction = (await browser.get(`${authorization.pathname}${authorization.search}`)).headers.get('location')!;
  assert.match(interaction, /^\/console\/oauth\/[A-Za-z0-9_-]+$/);
  const toSignIn = await browser.get(interaction);
  assert.equal([toSignIn.status, toSignIn.headers.get('location')], [303, `/console/entrar?voltar=${encodeURIComponent(interaction)}`]);
  const form = await browser.get(toSignIn.headers.get('location')!);
  assert.match(form.text, `name="voltar" value="${interaction}"`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.text)![1]!;
  const signedIn = await browser.post('/console/entrar', { email: 'ana@agente.example', senha: 'uma senha bem longa', csrf, voltar: interaction });
  assert.equal([signedIn.status, signedIn.headers.get('location')], [303, interaction]);
  const consent = await browser.get(interaction);
  assert.is(consent.status, 200);
  assert.match(consent.text, 'Agente sem sessão');
  assert.match(consent.text, 'Banco Agente');
  // Browsers hold the form's redirects to form-action: the client's address is allowed on this page only.
  assert.match(consent.headers.get('content-security-policy')!, "form-action 'self' http://127.0.0.1:8976;");
  assert.match((await browser.get('/console')).headers.get('content-security-policy')!, "form-action 'self';");
  // Never back to another site.
  const outside = await browser.get('/console/entrar?voltar=%2F%2Fevil.example%2Fconsole%2F');
  assert.is(outside.headers.get('location'), '/console');
});

test('a denied consent sends the client access_denied and no token', async ({ app, browser }) => {
  const oauth = new MemoryOAuthClient('Agente negado');
  const back = await consentInBrowser(browser, await askAuthorization(app, oauth), 'negar');
  assert.is(back.searchParams.get('error'), 'access_denied');
  assert.is(back.searchParams.get('code'), null);
});

test('the console lists the authorized agents; revoking one stops its token at once', async ({ app, browser }) => {
  const { client, oauth } = await authorizedMcp(app, browser, new MemoryOAuthClient('Agente revogável'));
  await client.listTools();
  const settings = await browser.get('/console/api');
  assert.match(settings.text, 'Agente revogável');
  assert.match(settings.text, `${app.url}/mcp`);
  const action = /<tr><td>Agente revogável<\/td><td>[^<]*<\/td><td><form method="post" action="([^"]+)"/.exec(settings.text)![1]!;
  const revoked = await browser.post(action, { csrf: await browser.csrfOf('/console/api') });
  assert.equal([revoked.status, revoked.headers.get('location')], [303, '/console/api#mcp']);
  assert.not.match((await browser.get('/console/api')).text, 'Agente revogável');
  const after = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${oauth.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.is(after.status, 401);
  // Another user cannot revoke what is not theirs.
  const { browser: other } = await signedInTenant(app, { name: 'Terceiro', email: 'rui@terceiro.example', password: 'uma senha bem longa' });
  const foreign = await other.post(action, { csrf: await other.csrfOf('/console/api') });
  assert.is(foreign.status, 404);
});

test('changing the password ends the agents the user authorized (a grant given with the old password alone does not outlive it)', async ({ app }) => {
  const { browser } = await signedInTenant(app, { name: 'Troca Senha', email: 'lia@troca.example', password: 'uma senha bem longa' });
  const { client, oauth } = await authorizedMcp(app, browser, new MemoryOAuthClient('Agente antigo'));
  await client.listTools();
  const changed = await browser.post('/console/senha', {
    csrf: await browser.csrfOf('/console/senha'),
    atual: 'uma senha bem longa',
    nova: 'outra senha bem longa',
    confirmacao: 'outra senha bem longa',
  });
  assert.is(changed.status, 200, changed.text);
  assert.match(changed.text, 'agentes autorizados');
  assert.not.match((await browser.get('/console/api')).text, 'Agente antigo');
  const after = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${oauth.saved!.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.is(after.status, 401);
});

// Last: it uses up this address's registrations for the hour.
test('a client that registers as "Claude" with a foreign redirect: the consent page says it is not verified and shows the whole redirect URI', async ({ app, browser }) => {
  const oauth = new MemoryOAuthClient('Claude', 'https://attacker.example/cb?next=%2Fsteal');
  const authorizationUrl = await askAuthorization(app, oauth);
  const toInteraction = await browser.get(`${authorizationUrl.pathname}${authorizationUrl.search}`);
  assert.is(toInteraction.status, 303);
  const consent = await browser.get(toInteraction.headers.get('location')!);
  assert.is(consent.status, 200);
  assert.match(consent.text, /id="nao-verificado"/);
  assert.match(consent.text, /Aplicativo não verificado/);
  assert.ok(consent.text.includes('<code id="retorno">https://attacker.example/cb?next=%2Fsteal</code>'), consent.text);
});

test('oauth_artifacts holds no access token, refresh token or code in clear; the tokens work and refresh', async ({ app, browser }) => {
  const oauth = new MemoryOAuthClient();
  const back = await consentInBrowser(browser, await askAuthorization(app, oauth));
  const code = back.searchParams.get('code')!;
  await exchangeCode(app, oauth, code);
  const { access_token: accessToken, refresh_token: refreshToken } = oauth.saved!;
  const rows = await app.app.db('oauth_artifacts').select('model', 'id', app.app.db.raw('payload::text as payload'));
  for (const secret of [accessToken, refreshToken!, code]) {
    assert.not.ok(
      rows.some((r) => r.id === secret || r.payload.includes(secret)),
      `${secret.slice(0, 6)}... is stored in clear`,
    );
  }
  assert.ok(
    rows.some((r) => r.model === 'AccessToken' && /^[0-9a-f]{64}$/.test(r.id)),
    'kept as its hash',
  );
  const client = await connectMcp(app, oauth);
  assert.ok((await client.listTools()).tools.length > 0, 'the access token still opens /mcp');
  await client.close();
  const refreshed = await fetch(`${app.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken!, client_id: oauth.information!.client_id }).toString(),
  });
  assert.is(refreshed.status, 200, await refreshed.clone().text());
  const renewed = await refreshed.json();
  const again = await app.app.db('oauth_artifacts').select('id', app.app.db.raw('payload::text as payload'));
  assert.not.ok(again.some((r) => r.id === renewed.access_token || r.payload.includes(renewed.access_token)));
});

test("open registration is bounded per caller address: 429 in the error shape once the hour's are used up", async ({ app }) => {
  const register = () =>
    fetch(`${app.url}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Enxurrada', redirect_uris: ['http://127.0.0.1:9/cb'], token_endpoint_auth_method: 'none' }),
    });
  let reply = await register();
  for (let i = 0; i < CLIENT_REGISTRATIONS_PER_HOUR && reply.status === 201; i++) reply = await register();
  assert.is(reply.status, 429);
  assert.equal(await reply.json(), { code: 429, message: Messages.tooManyClientRegistrations });
  assert.ok(Number(reply.headers.get('retry-after')) > 0);
});

test.run();

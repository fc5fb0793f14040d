import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { committeePolicy, finishedDeliberation, reportUnder } from '../support/committee.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  searxng: Server;
  queries: string[];
}
const test = suite<Ctx>("committee web search through a SearXNG instance's JSON API (a local server speaking it)");

test.before(async (ctx) => {
  ctx.queries = [];
  // SearXNG's /search?format=json answer: {results: [{title, url, content}]}.
  ctx.searxng = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    ctx.queries.push(`${url.pathname}?format=${url.searchParams.get('format')}&q=${url.searchParams.get('q')}`);
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ results: [{ title: 'Operação investiga fraude em crédito rural', url: 'https://noticias.example/operacao', content: 'Mandados contra empresas suspeitas.' }] }));
  });
  await new Promise<void>((resolve) => ctx.searxng.listen(0, '127.0.0.1', resolve));
  const { port } = ctx.searxng.address() as AddressInfo;
  ctx.app = await startTestApp({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: `http://127.0.0.1:${port}` });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  await new Promise((resolve) => ctx.searxng?.close(resolve));
});

test('the Cadastral agent searches once by the registry name; an adverse page becomes a warning to check, never a verdict', async ({ app, tenant, queries }) => {
  const reportId = await reportUnder(app, tenant.token, committeePolicy('AUTO_SUGGEST'));
  const deliberation = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(deliberation.status, 'DONE', deliberation.error);
  assert.is(deliberation.webSearchRequests, 1);
  assert.is(queries.length, 1);
  assert.match(queries[0]!, /^\/search\?format=json&q=.+ empresa$/);
  const cadastral = deliberation.agentOpinions.find((o: any) => o.agent === 'cadastral');
  const flag = cadastral.redFlags.find((f: any) => f.label === 'Notícias negativas na web');
  assert.ok(flag, JSON.stringify(cadastral.redFlags));
  assert.is(flag.severity, 'WARNING');
});

test.run();

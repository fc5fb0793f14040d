import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { screeningMigrations } from '../../application/screening/store.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

/**
 * A list's address may carry a download token in its query: the service fetches with it, and
 * keeps only the address without it (what the lists route shows), in the table as in the reply.
 */

const TOKEN = 'tk-9f1c2e7a55b04d3e';

interface Ctx {
  server: Server;
  asked: string[];
  app: TestApp;
  tenant: TestTenant;
  base: string;
}
const test = suite<Ctx>("screening: a list address's token is used to fetch and never stored");

test.before(async (ctx) => {
  const body = readFileSync(new URL('../fixtures/lists/sdn.xml', import.meta.url));
  ctx.asked = [];
  ctx.server = createServer((request, response) => {
    ctx.asked.push(request.url!);
    response.writeHead(200, { 'content-type': 'application/xml' }).end(body);
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  ctx.base = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}/sdn.xml`;
  ctx.app = await startTestApp({ SCREENING_OFAC_SDN_SOURCE: `${ctx.base}?token=${TOKEN}#lista` });
  ctx.tenant = await provisionTenant(ctx.app);
});
test.after(async (ctx) => {
  await ctx.app?.stop();
  ctx.server?.close();
});

test('the list is fetched with its token; the version row and the route keep the address without it', async (ctx) => {
  const lists = await eventually(
    async () => {
      const reply = await ctx.app.call('GET', '/v1/screening/lists', { token: ctx.tenant.token });
      return reply.body.lists.find((l: { list: string; status: string }) => l.list === 'OFAC_SDN' && l.status === 'LOADED');
    },
    { timeoutMs: 20_000, what: 'OFAC loaded from the address' },
  );
  assert.ok(ctx.asked.includes(`/sdn.xml?token=${TOKEN}`), 'the provider got the token');
  assert.equal(lists.source, { kind: 'ADDRESS', location: ctx.base });
  const knex = ctx.app.database.knex;
  const row = await knex('screening_list_versions').where({ id: lists.listVersionId }).first('source');
  assert.is(row.source, ctx.base);
  const leaked = await knex.raw(`select count(*)::int as n from screening_list_versions v where v::text like ?`, [`%${TOKEN}%`]);
  assert.is(leaked.rows[0].n, 0, 'no version row holds the token');
  const failures = await knex.raw(`select count(*)::int as n from screening_list_failures f where f::text like ?`, [`%${TOKEN}%`]);
  assert.is(failures.rows[0].n, 0);
});

test('the migration rewrites the rows written before: addresses lose userinfo, query and fragment, files keep their name', async (ctx) => {
  const knex = ctx.app.database.knex;
  const at = new Date();
  const legacy = [
    { id: 'legacy-address', list: 'CEIS', status: 'REPLACED', source: `https://user:secret@portal.example/download/ceis.zip?token=${TOKEN}#x`, loaded_at: at },
    { id: 'legacy-file', list: 'PEP', status: 'REPLACED', source: '/srv/listas/202610_PEP.csv', loaded_at: at },
  ];
  await knex('screening_list_versions').insert(legacy);
  const migration = screeningMigrations.find((m) => m.name === '202612020000_screening_list_sources_described')!;
  await migration.up(knex);
  const rows = await knex('screening_list_versions')
    .whereIn(
      'id',
      legacy.map((l) => l.id),
    )
    .orderBy('id')
    .select('id', 'source');
  assert.equal(rows, [
    { id: 'legacy-address', source: 'https://portal.example/download/ceis.zip' },
    { id: 'legacy-file', source: '202610_PEP.csv' },
  ]);
  await knex('screening_list_versions')
    .whereIn(
      'id',
      legacy.map((l) => l.id),
    )
    .delete();
});

test.run();

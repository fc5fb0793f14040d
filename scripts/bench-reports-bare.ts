/**
 * The baseline of `npm run bench:reports`' GET phase, in a process of its own: a bare koa + pg
 * route answering the report and its sections in one query, straight to JSON, with no
 * authentication and no limits. BENCH_DATABASE_URL and BENCH_ORGANIZATION_ID say what to serve;
 * prints `{"url": ...}` once listening; SIGTERM stops it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import pg from 'pg';

const organizationId = process.env.BENCH_ORGANIZATION_ID!;
// The same pool size as the service's (DB_POOL_MAX in bench-reports.ts).
const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL!, max: 20 });
const router = new Router();
router.get('/v2/report/:id', async (ctx) => {
  const { rows } = await pool.query({
    // A prepared statement, as ours uses: planned once per connection.
    name: 'bare-report',
    text: `select to_jsonb(r) || jsonb_build_object('sections',
              coalesce((select jsonb_agg(to_jsonb(s) order by s.position) from report_sections s where s.report_id = r.id), '[]')) as report
             from report_reports r where r.id = $1 and r.organization_id = $2`,
    values: [ctx.params.id, organizationId],
  });
  ctx.status = rows.length ? 200 : 404;
  ctx.body = rows[0]?.report ?? { code: 404 };
});
const koa = new Koa();
koa.use(router.routes());
const server = createServer(koa.callback());
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void pool.end().then(() => process.exit(0)));
});

/**
 * The baseline of bench:pricing's HTTP phase, in a process of its own: the least a koa route can
 * be around the same computation (parse the JSON body, simulate, answer the 360 rows as JSON), no
 * authentication, no validation, no limits. Prints `{"url": ...}` once listening; SIGTERM stops it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { brazilHolidays } from '../application/pricing/holidays.ts';
import { IOF_RATES } from '../domain/pricing/iof.ts';
import { simulate } from '../domain/pricing/simulate.ts';
import { inputOf } from './bench-pricing-inputs.ts';

const koa = new Koa();
koa.use(async (ctx) => {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  ctx.body = simulate(inputOf(JSON.parse(Buffer.concat(chunks).toString())), brazilHolidays, IOF_RATES);
});
const server = createServer(koa.callback());
server.keepAliveTimeout = 5_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

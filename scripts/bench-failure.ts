/**
 * `npm run bench:failure [-- [--quick] --rounds 6 --rate 50 --seconds 20 --backlog 1000 --outage-seconds 20]`:
 * webhooks when receivers misbehave, on the service as `npm start` runs it (its shipped timeout of
 * 10 s and retry delays of 5 s, 30 s, 120 s).
 *
 *   noisy neighbours: a healthy tenant's events at --rate/s for --seconds, alone ("quiet") or
 *                     beside two tenants at the same rate whose receivers hang until the send
 *                     times out and answer 500 ("troubled"); the healthy tenant's delivery p99
 *                     (append to arrival) in paired rounds, rotated. Target: troubled within 1.2x
 *                     of quiet (quiet p99 / troubled p99 >= 0.83 on the interval's lower bound).
 *                     Retries of an earlier troubled round may fall in a later quiet one: the
 *                     rotation spreads that over both.
 *   outage backlog:   --backlog events to ten subscriptions of a receiver that answers 503 for
 *                     --outage-seconds, then recovers; the rate at which the backlog drains, from
 *                     its first arrival after the recovery to its last (the wait for the retry
 *                     schedule's next attempt is printed apart), against a bare unpaced loop that
 *                     signs and POSTs the same number of bodies with the same concurrency (32), in
 *                     --rounds paired rounds, rotated. Target (D): >= 0.7x. The retries come due
 *                     as spread as the first attempts were: a dispatcher slower to try the
 *                     backlog the first time drains it slower, which is part of what is measured.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { generateSigningSecret, signedHeaders } from '../application/webhook/signing.ts';
import { createIdGenerator } from '../platform/ids.ts';
import { appendReportEventTo, reportFacts } from '../test/support/webhook.ts';
import { benchHeader, disturbedBaseline, largest, loadNow, pairedRounds, ratioInterval, runBench, smallest, verdict } from './bench-method.ts';
import { benchDatabase, benchFlags, phase, provisionOverCli, startServiceProcess } from './bench-service.ts';

const flags = benchFlags({
  rounds: { full: '6', quick: '5' },
  rate: { full: '50', quick: '10' },
  seconds: { full: '20', quick: '3' },
  backlog: { full: '1000', quick: '50' },
  'outage-seconds': { full: '20', quick: '10' },
});
const ROUNDS = Number(flags.rounds);
const RATE = Number(flags.rate);
const SECONDS = Number(flags.seconds);
const BACKLOG = Number(flags.backlog);
const OUTAGE_SECONDS = Number(flags['outage-seconds']);
const SUBSCRIPTIONS = 10;
const CONCURRENCY = 32;
const TARGET = { troubledVsQuiet: 1 / 1.2, drainVsBare: 0.7 };

const ids = createIdGenerator();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

type Behaviour = 'ok' | 'hang' | 'fail' | 'down';
/** A receiver whose behaviour can change; `arrivals` holds [ms after append, arrival time] of each body it accepted. */
async function receiver(behaviour: Behaviour): Promise<{ url: string; server: Server; behaviour: Behaviour; arrivals: Array<[number, number]> }> {
  const state = { behaviour, arrivals: [] as Array<[number, number]> };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.behaviour === 'hang') return; // answered never: the sender's timeout ends it
      if (state.behaviour !== 'ok') return void res.writeHead(state.behaviour === 'fail' ? 500 : 503).end();
      const at = Date.now();
      res.writeHead(204).end();
      const appendedAt = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { benchAppendedAt?: number } }).data?.benchAppendedAt;
      state.arrivals.push([appendedAt ? at - appendedAt : NaN, at]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server });
}

await runBench(async () => {
  console.log(benchHeader('bench:failure'));
  const { database, store, cpu } = await benchDatabase();
  const receivers = { healthy: await receiver('ok'), hanging: await receiver('hang'), failing: await receiver('fail'), outage: await receiver('down') };
  const service = await startServiceProcess(database, { RATE_LIMIT_PER_CREDENTIAL: '10000000', RATE_LIMIT_PER_ORGANIZATION: '10000000' });
  try {
    const serviceCpu = await cpu(service.pid);
    const tenants: Record<string, string> = {};
    for (const [name, target] of Object.entries(receivers)) {
      const tenant = await provisionOverCli(service, database, name);
      tenants[name] = tenant.organizationId;
      for (let i = 0; i < (name === 'outage' ? SUBSCRIPTIONS : 1); i++) {
        const reply = await fetch(`${service.url}/v1/webhook/subscriptions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: target.url, events: ['report.status.changed'] }),
        });
        if (reply.status !== 201) throw new Error(`subscription: ${reply.status} ${await reply.text()}`);
      }
    }
    const append = (organization: string) => appendReportEventTo(store, 'ReportDecided', { organizationId: organization, benchAppendedAt: Date.now() }, ids.objectId());
    /** RATE events/s for SECONDS for each named tenant; the healthy tenant's delivery p99 once all its events arrived. */
    const run = async (names: string[]): Promise<number> => {
      const before = receivers.healthy.arrivals.length;
      const started = performance.now();
      const appends: Promise<unknown>[] = [];
      for (let i = 0; i < RATE * SECONDS; i++) {
        const wait = started + (i * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        for (const name of names) appends.push(append(tenants[name]!));
      }
      await Promise.all(appends);
      while (receivers.healthy.arrivals.length < before + RATE * SECONDS) await sleep(50);
      return percentile(
        receivers.healthy.arrivals
          .slice(before)
          .map(([ms]) => ms)
          .sort((a, b) => a - b),
        99,
      );
    };
    const p99 = await pairedRounds(
      {
        quiet: (round) => phase(`round ${round + 1} quiet`, serviceCpu, () => run(['healthy'])),
        troubled: (round) => phase(`round ${round + 1} troubled`, serviceCpu, () => run(['healthy', 'hanging', 'failing'])),
      },
      ROUNDS,
    );
    console.log(`healthy tenant's delivery p99 at ${RATE} events/s, ${SECONDS} s a round; ${loadNow()}`);
    console.log(`  quiet p99 ms: ${p99.quiet.map((p) => p.toFixed(0)).join(', ')}`);
    console.log(`  beside a hanging and a failing receiver, p99 ms: ${p99.troubled.map((p) => p.toFixed(0)).join(', ')}`);
    // Latencies: the baseline goes first so that the ratio reads "higher is better" (scripts/bench-method.ts).
    console.log(
      verdict(
        'quiet p99 / troubled p99 (within 1.2x)',
        ratioInterval(p99.quiet, p99.troubled),
        Number(TARGET.troubledVsQuiet.toFixed(2)),
        disturbedBaseline(
          'quiet',
          p99.quiet.map((p) => 1 / p),
        ),
      ),
    );

    // The outage: every first attempt refused, the backlog waits in the retry schedule; then the
    // receiver recovers. Each round its own backlog, beside the bare loop, in rotated order.
    const outage = receivers.outage;
    const expected = BACKLOG * SUBSCRIPTIONS;
    const secret = generateSigningSecret();
    const body = JSON.stringify({ id: 'bare', type: 'report.status.changed', data: reportFacts({ organizationId: tenants.outage! }, 'f'.repeat(24)) });
    const waits: number[] = [];
    const drains = await pairedRounds(
      {
        ours: (round) =>
          phase(`round ${round + 1} outage, then drain (service process and PostgreSQL)`, serviceCpu, async () => {
            const before = outage.arrivals.length;
            outage.behaviour = 'down';
            await Promise.all(Array.from({ length: BACKLOG }, () => append(tenants.outage!)));
            await sleep(OUTAGE_SECONDS * 1000);
            outage.behaviour = 'ok';
            const recovered = Date.now();
            const deadline = recovered + 600_000;
            while (outage.arrivals.length < before + expected && Date.now() < deadline) await sleep(100);
            const arrived = outage.arrivals.slice(before).map(([, at]) => at);
            if (arrived.length < expected) throw new Error(`round ${round + 1}: ${arrived.length} of ${expected} deliveries drained within 10 minutes of the recovery`);
            const first = smallest(arrived);
            waits.push((first - recovered) / 1000);
            return expected / ((largest(arrived) - first) / 1000);
          }),
        // The bare loop: the same number of signed bodies, unpaced, 32 at a time, to a receiver that answers.
        bare: async () => {
          const agent = new Agent({ connections: CONCURRENCY });
          const started = performance.now();
          let next = 0;
          await Promise.all(
            Array.from({ length: CONCURRENCY }, async () => {
              while (next < expected) {
                const id = `bare-${next++}`;
                const headers = signedHeaders({ deliveryId: id, event: 'report.status.changed', body, secret, previousSecret: null, timestamp: Math.floor(Date.now() / 1000) });
                const reply = await request(receivers.healthy.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body, dispatcher: agent });
                await reply.body.dump();
              }
            }),
          );
          const rate = expected / ((performance.now() - started) / 1000);
          await agent.close();
          return rate;
        },
      },
      ROUNDS,
    );
    console.log(`outage backlog: ${expected} deliveries a round after ${OUTAGE_SECONDS} s down; ${loadNow()}`);
    console.log(`  first arrival after the recovery (the retry schedule's next attempt), s: ${waits.map((w) => w.toFixed(1)).join(', ')}`);
    console.log(`  ours drained, deliveries/s from the first arrival to the last: ${drains.ours!.map((r) => r.toFixed(0)).join(', ')}`);
    console.log(`  bare unpaced loop, deliveries/s: ${drains.bare!.map((r) => r.toFixed(0)).join(', ')}`);
    console.log(verdict('drain/bare (D)', ratioInterval(drains.ours!, drains.bare!), TARGET.drainVsBare, disturbedBaseline('bare', drains.bare!)));
  } finally {
    await service.stop();
    for (const r of Object.values(receivers)) {
      r.server.closeAllConnections();
      r.server.close();
    }
    await store.close();
    await database.drop();
  }
});

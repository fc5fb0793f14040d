/**
 * `npm run bench:memory [-- [--quick] --rounds 3 --burst 1000 --rows 5000 --trail 100000]`: the peak
 * resident memory of the service, run as `npm start` runs it in a process of its own, while it
 * does each of the heavy things it is asked to do, one at a time. The peak is the kernel's
 * (VmHWM of /proc/<pid>/status), restarted before each round (`clear_refs`), so nothing between
 * rounds counts and no sample can miss a short peak. Target (issue 38): each < 300 MB.
 *
 *   webhook burst:  --burst report events appended at once, ten subscriptions each (so ten times
 *                   as many signed deliveries), until the receiver has every one;
 *   XLSX export:    GET /v1/proposals/dashboard/rows?format=xlsx of --rows proposals;
 *   trail export:   GET .../trail/export?format=json of one collection of --trail entries;
 *   rebuild:        `npm run projections:rebuild -- collection-trail` over that log, in its own
 *                   process: that process's peak (the command an operator runs), and the
 *                   service's own peak meanwhile.
 *
 * Every round is printed; a target counts as met only when every round is under it.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { reportFacts } from '../test/support/webhook.ts';
import { benchHeader, loadNow, runBench } from './bench-method.ts';
import { collectionIdOf, seedTrails } from './bench-seed.ts';
import { benchDatabase, benchFlags, descendants, phase, provisionOverCli, resetPeakRss, startServiceProcess, statusMb } from './bench-service.ts';

const flags = benchFlags({
  rounds: { full: '3', quick: '2' },
  burst: { full: '1000', quick: '100' },
  rows: { full: '5000', quick: '500' },
  trail: { full: '100000', quick: '5000' },
});
const ROUNDS = Number(flags.rounds);
const BURST = Number(flags.burst);
const ROWS = Number(flags.rows);
const TRAIL = Number(flags.trail);
const SUBSCRIPTIONS = 10;
const TARGET_MB = 300;
const ROOT = new URL('..', import.meta.url).pathname;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `rows` proposals for the organization, created over the last 300 days: what the export reads. */
const SEED_PROPOSALS = `
insert into proposal_facts (id, organization_id, created_at, created_by, document, name, entity_type, kind, origin, product_id, product_key, product_name,
  status, status_changed_at, requested_cents, requested_term_months)
select lpad(to_hex(i), 24, '0'), :org, now() - (i::double precision / :n) * interval '300 days', 'bench', lpad(i::text, 11, '0'), 'Cliente ' || i,
  case when i % 4 = 0 then 'COMPANY' else 'PERSON' end, 'FINANCING', 'API', 'p' || (i % 8), 'produto-' || (i % 8), 'Produto ' || (i % 8),
  case when i % 3 = 0 then 'ISSUED' else 'IN_ANALYSIS' end, now() - (i::double precision / :n) * interval '290 days', 100000 * (1 + i % 50), 12
from generate_series(1, :n) i`;

await runBench(async () => {
  console.log(benchHeader('bench:memory'));
  const { database, store, cpu } = await benchDatabase();
  let received = 0;
  const receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received++;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const service = await startServiceProcess(database, { RATE_LIMIT_PER_CREDENTIAL: '10000000', RATE_LIMIT_PER_ORGANIZATION: '10000000' });
  try {
    const serviceCpu = await cpu(service.pid);
    const tenant = await provisionOverCli(service, database, 'Bench');
    const headers = { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' };
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const reply = await fetch(`${service.url}/v1/webhook/subscriptions`, { method: 'POST', headers, body: JSON.stringify({ url: receiverUrl, events: ['report.status.changed'] }) });
      if (reply.status !== 201) throw new Error(`subscription: ${reply.status} ${await reply.text()}`);
    }
    await database.knex.raw(SEED_PROPOSALS, { org: tenant.organizationId, n: ROWS });
    const collectionId = collectionIdOf(0);
    await seedTrails(store, [tenant.organizationId], TRAIL, TRAIL);
    const count = async (table: string) => Number((await database.knex(table).count({ n: '*' }))[0]!.n);
    while ((await count('collection_trail_entries')) < TRAIL || (await count('collection_trail_unsealed')) > 0) await sleep(500);
    console.log(`service (npm start, pid ${service.pid}) idle at ${service.rssMb().toFixed(0)} MB after seeding ${ROWS} proposals and a trail of ${TRAIL} entries; ${loadNow()}`);

    const get = async (path: string): Promise<number> => {
      const reply = await fetch(service.url + path, { headers });
      if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${await reply.text()}`);
      let bytes = 0;
      for await (const chunk of reply.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
      return bytes;
    };
    // The export's longest period is 366 days; the proposals span the last 300.
    const to = new Date().toISOString();
    const from = new Date(Date.now() - 365 * 86_400_000).toISOString();

    const workloads: Record<string, { run(): Promise<string>; otherPeak?: () => number }> = {
      'webhook burst': {
        async run() {
          const expected = received + BURST * SUBSCRIPTIONS;
          const started = performance.now();
          await Promise.all(
            Array.from({ length: BURST }, (_, i) => {
              const data = reportFacts({ organizationId: tenant.organizationId }, (Date.now() * 1000 + i).toString(16).padStart(24, '0').slice(-24));
              return store.appendToStream(`report-${data.reportId}`, [{ type: 'ReportDecided', data: { ...data } }], { expectedRevision: 'any' });
            }),
          );
          while (received < expected) await sleep(50);
          return `${BURST * SUBSCRIPTIONS} deliveries in ${((performance.now() - started) / 1000).toFixed(1)} s`;
        },
      },
      'XLSX export': { run: async () => `${ROWS} rows, ${((await get(`/v1/proposals/dashboard/rows?from=${from}&to=${to}&format=xlsx`)) / 1024).toFixed(0)} KiB` },
      'trail export': { run: async () => `${TRAIL} entries, ${((await get(`/v1/collections/${collectionId}/trail/export?format=json`)) / 1e6).toFixed(1)} MB` },
    };
    let rebuildPeak = 0;
    workloads.rebuild = {
      async run() {
        const child = spawn('npm', ['run', '--silent', 'projections:rebuild', '--', 'collection-trail'], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: service.dataDir, LOG_LEVEL: 'warn' },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let output = '';
        child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
        rebuildPeak = 0;
        // VmHWM only grows: the last look before the command ends is its peak, give or take 50 ms of growth.
        const watch = setInterval(() => {
          for (const pid of descendants(child.pid!)) {
            try {
              rebuildPeak = Math.max(rebuildPeak, statusMb(pid, 'VmHWM'));
            } catch {
              // Ended between the listing and the read.
            }
          }
        }, 50);
        const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
        clearInterval(watch);
        if (code !== 0) throw new Error(`projections:rebuild failed (exit ${code})`);
        return output.trim().split('\n').at(-1)!;
      },
      otherPeak: () => rebuildPeak,
    };

    const verdicts: string[] = [];
    for (const [name, workload] of Object.entries(workloads)) {
      const peaks: number[] = [];
      const others: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        resetPeakRss(service.pid);
        const what = await phase(`${name}, round ${round + 1} (service process and PostgreSQL)`, serviceCpu, () => workload.run());
        peaks.push(service.peakRssMb());
        if (workload.otherPeak) others.push(workload.otherPeak());
        console.log(`${name}, round ${round + 1}: ${what}; service peak RSS ${peaks.at(-1)!.toFixed(0)} MB${workload.otherPeak ? `, the command's peak RSS ${others.at(-1)!.toFixed(0)} MB` : ''}`);
      }
      const judge = (who: string, figures: number[]) =>
        `${name}, ${who} peak RSS: ${figures.map((f) => f.toFixed(0)).join(', ')} MB over ${figures.length} rounds   [target < ${TARGET_MB} MB in every round: ${Math.max(...figures) < TARGET_MB ? 'met' : 'MISSED'}]`;
      verdicts.push(judge('service', peaks));
      if (others.length) verdicts.push(judge('projections:rebuild command', others));
    }
    console.log(`\n${loadNow()}`);
    for (const line of verdicts) console.log(line);
  } finally {
    await service.stop();
    receiver.close();
    await store.close();
    await database.drop();
  }
});

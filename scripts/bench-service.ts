/**
 * The one way benches start the service, and what they share beyond scripts/bench-method.ts:
 *
 *  - startServiceProcess: the service as `npm start` runs it (its V8 flags, the production poll
 *    intervals), in a process of its own over the bench's database, measured from outside (its
 *    memory from /proc/<pid>/status, its CPU from /proc/<pid>/task); clients run in processes of
 *    their own too (bench-client.ts), never on the service's event loop;
 *  - asNpmStart: for the code a bench measures in its own process (our event store, the pricing
 *    engine), the bench re-run under `npm start`'s node flags;
 *  - a quick mode (`--quick` or BENCH_QUICK=1) that only proves a bench runs end to end;
 *  - the CPU each phase used.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { comparePositions, START, type Position } from '../platform/eventstore/port.ts';
import { PostgresEventStore } from '../platform/eventstore/postgres.ts';
import { readCheckpoints } from '../platform/projections/checkpoints.ts';
import { everyProjection } from '../projections/index.ts';
import { SCREENING_FIXTURES } from '../test/support/app.ts';
import { freePort } from '../test/support/cluster.ts';
import { createTestDatabase, type TestDatabase } from '../test/support/db.ts';
import { loadNow, onBenchEnd } from './bench-method.ts';
import { cpuUse, type CpuUse } from './cpu-use.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * `--quick` (or BENCH_QUICK=1): the fewest rounds the method allows, each short. It proves that a
 * bench runs end to end and prints its verdict; its figures are not for docs/benchmarks.md.
 */
export const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';

/** A count or duration: BENCH_<name> if set, else the quick or the full default. */
export function setting(name: string, full: number, quick: number): number {
  const given = process.env[`BENCH_${name}`];
  return given !== undefined ? Number(given) : QUICK ? quick : full;
}

/** The node flags of package.json's `start` script: those in its NODE_OPTIONS and those it gives tsx. */
export function npmStartFlags(): { nodeOptions: string[]; nodeArgs: string[] } {
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const flags = (words: string[]) => words.filter((word) => word.startsWith('--'));
  const words = start.split(/\s+/);
  // `tsx <node flags> scripts/start.ts`: what tsx is given before the script goes to node.
  const nodeArgs = flags(words.slice(words.indexOf('tsx') + 1, words.indexOf('scripts/start.ts')));
  return { nodeOptions: flags((/NODE_OPTIONS="([^"]*)"/.exec(start)?.[1] ?? '').split(/\s+/)), nodeArgs };
}

/**
 * Runs the rest of this bench in a child process started with `npm start`'s node flags (read
 * from package.json, so the two cannot drift apart), and exits with its code: the code a bench
 * measures in its own process (our event store, the pricing engine) then runs with the heap
 * settings the service ships with. The child's runBench ends it (its services stopped, its
 * cluster and folders removed) on a signal; this process passes on the signals it gets itself
 * (a `kill` of its pid reaches only it) and waits for the child to have cleaned up.
 */
export async function asNpmStart(): Promise<void> {
  if (process.env.BENCH_AS_NPM_START === '1') return;
  const { nodeOptions, nodeArgs } = npmStartFlags();
  const child = spawn(process.execPath, [...nodeArgs, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, BENCH_AS_NPM_START: '1', NODE_OPTIONS: [...nodeOptions, process.env.NODE_OPTIONS ?? ''].join(' ').trim() },
  });
  // A Ctrl-C reaches the child too (same process group); a second signal there is harmless (endBench runs once).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  process.exit(code);
}

/**
 * Counts a phase's CPU (this process's main thread, its other threads, PostgreSQL: scripts/cpu-use.ts);
 * the returned function prints it with the load average. `backendPid`: any backend of the cluster.
 */
export function phaseCpu(backendPid: number): (phase: string) => () => void {
  const cpu = cpuUse(backendPid);
  return (phase) => {
    const start = cpu?.now();
    return () => console.log(`  ${phase}: ${start ? cpu!.since(start) : 'cpu not measured here'}; ${loadNow()}`);
  };
}

/** Generous: on a loaded machine loading the service's modules alone has taken minutes. */
const START_TIMEOUT_MS = 300_000;

export interface ServiceProcess {
  url: string;
  /** The node process that runs scripts/start.ts (below npm, its shell and the tsx launcher). */
  pid: number;
  dataDir: string;
  /** The peak resident set since the process started or since the last resetPeak, in MB (VmHWM). */
  peakRssMb(): number;
  /** The resident set now, in MB (VmRSS). */
  rssMb(): number;
  /** Starts a new peak (Linux: "5" to /proc/<pid>/clear_refs resets VmHWM to the current RSS). */
  resetPeak(): void;
  stop(): Promise<void>;
}

/** A field of /proc/<pid>/status, in MB. */
export function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(line.split(/\s+/)[1]) / 1024;
}

export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** The processes a process started (Linux: /proc/<pid>/task/<pid>/children); none once it has ended. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** `root` and every process below it. */
export function descendants(root: number): number[] {
  return [root, ...childrenOf(root).flatMap(descendants)];
}

/** The deepest process below `root` (npm -> sh -> tsx -> node): the one running the script. */
function deepestDescendant(root: number): number | undefined {
  let pid = root;
  for (let next = childrenOf(pid)[0]; next !== undefined; next = childrenOf(pid)[0]) pid = next;
  return pid === root ? undefined : pid;
}

/** The environment every bench service gets: its database, a data folder, a port, the screening fixtures. */
function serviceEnvironment(database: TestDatabase, dataDir: string, port: number, env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...SCREENING_FIXTURES,
    ...env,
  };
}

/**
 * `npm start` over `database` with `env` on top (ROLES, rate limits, ...). `dataDir` shares the
 * secrets of another process of the same deployment (bench:scale); otherwise a fresh folder is
 * made and removed on stop. Resolves once GET /health answers, or when no port is served
 * (ROLES without `api`) once the process is up.
 */
export async function startServiceProcess(database: TestDatabase, env: Record<string, string> = {}, shared?: { dataDir: string }): Promise<ServiceProcess> {
  const dataDir = shared?.dataDir ?? mkdtempSync(join(tmpdir(), 'credit-bench-data-'));
  const port = await freePort();
  const child: ChildProcess = spawn('npm', ['start', '--silent'], { cwd: ROOT, env: serviceEnvironment(database, dataDir, port, env), stdio: ['ignore', 'ignore', 'inherit'] });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  let ended = false;
  void closed.then(() => (ended = true));
  let pid: number | undefined;
  /**
   * Stops the service, or while it starts whatever npm has started so far (npm would pass a
   * SIGTERM only to its shell), and removes the data folder unless it is shared. A signal may
   * have reached the service already (Ctrl-C goes to the whole process group): then it is ending
   * on its own and only waited for.
   */
  const stop = async () => {
    forget();
    if (!ended) {
      try {
        process.kill(pid ?? deepestDescendant(child.pid!) ?? child.pid!, 'SIGTERM');
      } catch {
        // Gone between the check and the signal.
      }
      await closed;
    }
    if (!shared) rmSync(dataDir, { recursive: true, force: true });
  };
  const forget = onBenchEnd(stop);
  const url = `http://127.0.0.1:${port}`;
  const servesHttp = (env.ROLES ?? 'api').split(',').includes('api');
  const deadline = Date.now() + START_TIMEOUT_MS;
  try {
    for (;;) {
      if (ended) throw new Error('the service ended before it was up (its log is above)');
      if (Date.now() > deadline) throw new Error(`the service was not up after ${START_TIMEOUT_MS / 1000} s`);
      // tsx's launcher is a node process too: the service is the deepest one, and its command runs start.ts.
      pid = deepestDescendant(child.pid!);
      if (pid !== undefined && !commandLine(pid).includes('scripts/start.ts')) pid = undefined;
      if (pid !== undefined && (!servesHttp ? await settled(3000) : await healthy(url))) break;
      await settled(200);
    }
  } catch (error) {
    // Nothing left behind: the service if it got that far, else npm and what it started.
    await stop();
    throw error;
  }
  const servicePid = pid;
  return {
    url,
    pid: servicePid,
    dataDir,
    peakRssMb: () => statusMb(servicePid, 'VmHWM'),
    rssMb: () => statusMb(servicePid, 'VmRSS'),
    resetPeak: () => resetPeakRss(servicePid),
    stop,
  };
}

const settled = (ms: number) => new Promise<true>((resolve) => setTimeout(() => resolve(true), ms));

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    // The process ended between listing and reading: look again on the next turn.
    return '';
  }
}

async function healthy(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/health`)).status === 200;
  } catch {
    return false;
  }
}

/** One of package.json's scripts run as an operator runs it over the bench's database and data folder; its standard output. */
export async function npmRun(script: string, args: string[], database: TestDatabase, dataDir: string): Promise<string> {
  const child = spawn('npm', ['run', '--silent', script, '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`npm run ${script} failed (exit ${code}): ${output}`);
  return output;
}

/** A tenant with every module, provisioned as an operator does (`npm run provision`), and its bearer token. */
export async function provisionOverCli(service: ServiceProcess, database: TestDatabase, name: string): Promise<{ organizationId: string; token: string }> {
  const output = await npmRun('provision', ['--org', name], database, service.dataDir);
  const tenant = JSON.parse(output) as { organizationId: string; clientId: string; clientSecret: string };
  // The CLI waits for the identity projection only so long: on a loaded machine the credential may
  // reach the service's read model later, and until then it is refused as unknown.
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const reply = await fetch(`${service.url}/auth/authenticate`, { method: 'POST', headers: { 'service-client-id': tenant.clientId, 'service-client-secret': tenant.clientSecret } });
    const body = (await reply.json()) as { accessToken?: string };
    if (reply.status === 200 && body.accessToken) return { organizationId: tenant.organizationId, token: body.accessToken };
    if (reply.status !== 400 || Date.now() > deadline) throw new Error(`authenticate: ${reply.status} ${JSON.stringify(body)}`);
    await settled(500);
  }
}

/**
 * Waits until no projection's checkpoint has moved for `quietMs`, and names those short of the
 * log's head then (nothing of theirs in the log, or they keep no checkpoint for it). A service
 * started over a seeded log has every projection read it from the start: until they are done
 * they share the service's CPU with whatever a bench measures.
 */
export async function projectionsSettled(database: TestDatabase, head: Position, quietMs = 5000): Promise<string[]> {
  const names = everyProjection.map((p) => p.name);
  for (let seen = '', still = performance.now(); performance.now() - still < quietMs; await settled(250)) {
    const now = JSON.stringify([...(await readCheckpoints(database.knex, names))].map(([name, c]) => [name, c.position.commit.toString()]));
    if (now !== seen) [seen, still] = [now, performance.now()];
  }
  const positions = await readCheckpoints(database.knex, names);
  return names.filter((name) => comparePositions(positions.get(name)?.position ?? START, head) < 0);
}

/**
 * A fresh migrated database on the bench's own cluster (stopped and removed by endBench), a store
 * over it for the bench's own appends, and the CPU counter of a service process and PostgreSQL.
 */
export async function benchDatabase(): Promise<{ database: TestDatabase; store: PostgresEventStore; cpu(servicePid: number): Promise<CpuUse | null> }> {
  const database = await createTestDatabase();
  const store = new PostgresEventStore(database.knex);
  return {
    database,
    store,
    cpu: async (servicePid) => cpuUse(Number((await database.knex.raw('select pg_backend_pid() as pid')).rows[0].pid), servicePid),
  };
}

/** Runs `work` and returns it with the CPU it took (service process and PostgreSQL), printed after `label`. */
export async function phase<T>(label: string, cpu: CpuUse | null, work: () => Promise<T>): Promise<T> {
  const start = cpu?.now();
  const result = await work();
  if (cpu && start) console.log(`  ${label}: ${cpu.since(start)}`);
  return result;
}

/**
 * A bench's size flags (`-- --name value`): each given one wins, else its full default, or its
 * quick one under `--quick` (or BENCH_QUICK=1), the small run that only proves the bench works.
 */
export function benchFlags<K extends string>(spec: Record<K, { full: string; quick: string }>): Record<K, string> {
  const options = Object.fromEntries(Object.keys(spec).map((name) => [name, { type: 'string' as const }]));
  const { values } = parseArgs({ options: { ...options, quick: { type: 'boolean' } } });
  const given = values as Record<string, string | boolean | undefined>;
  return Object.fromEntries(
    (Object.entries(spec) as Array<[K, { full: string; quick: string }]>).map(([name, sizes]) => [name, (given[name] as string | undefined) ?? (QUICK ? sizes.quick : sizes.full)]),
  ) as Record<K, string>;
}

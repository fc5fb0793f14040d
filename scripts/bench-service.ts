/**
 * What the benches that run the service (or our store) share beyond scripts/bench-method.ts: the
 * service run as `npm start` runs it (its node flags, the shipped poll intervals), a short mode
 * that only proves a bench runs end to end, and the CPU each phase used.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { provisionTenant } from '../application/identity/provisioning.ts';
import { ConfigSchema } from '../config/schema.ts';
import { startTestApp, type TestApp } from '../test/support/app.ts';
import { authenticateOverHttp, type TestTenant } from '../test/support/identity.ts';
import { cpuUse } from './cpu-use.ts';
import { loadNow } from './bench-method.ts';

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
  const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start;
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

/** The shipped poll intervals, where startTestApp shortens them for tests. */
export const SHIPPED_POLLS = { PROJECTION_POLL_MS: String((ConfigSchema.properties.PROJECTION_POLL_MS as unknown as { default: number }).default) };

/** The whole service in this process, on a fresh database, with the shipped poll intervals. */
export function startShippedService(env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp({ LOG_LEVEL: 'fatal', ...SHIPPED_POLLS, ...env });
}

/**
 * A tenant with every module and its token, as test/support/identity.ts's provisionTenant makes
 * one, except that the first authentication is tried again for up to a minute: with the shipped
 * poll intervals on a loaded machine the identity projection can lag past the 5 s that
 * provisioning waits for it, and the credential is then not found yet.
 */
export async function benchTenant(app: TestApp, name = 'Bench lender'): Promise<TestTenant> {
  const { organizationId, userId, credentialId, clientId, clientSecret } = await provisionTenant(app.app, { name });
  for (const deadline = Date.now() + 60_000; ; await new Promise((resolve) => setTimeout(resolve, 250))) {
    const reply = await authenticateOverHttp(app, clientId, clientSecret);
    if (reply.status === 200) return { organizationId, userId, credentialId, clientId, clientSecret, token: reply.body.accessToken };
    if (Date.now() > deadline) throw new Error(`authenticate: ${reply.status} ${JSON.stringify(reply.body)}`);
  }
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

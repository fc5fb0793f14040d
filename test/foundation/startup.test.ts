import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { loadConfig } from '../../config/index.ts';
import { isPostgres, processStat } from '../../platform/database/embedded.ts';
import { startTestApp } from '../support/app.ts';
import { freePort } from '../support/cluster.ts';
import { createTestDatabase } from '../support/db.ts';
import { provisionTenant } from '../support/identity.ts';
import { waitForReport } from '../support/report.ts';
import { eventually } from '../support/wait.ts';

const test = suite('service start-up, wherever it is put');

const repo = fileURLToPath(new URL('../..', import.meta.url));
const asRoot = process.getuid?.() === 0;
// Generous: under a loaded machine initdb alone can take tens of seconds.
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 90_000;

let systemDir: string;
const cleanups: (() => void)[] = [];

test.before(() => {
  // The folder the service may use as root; made reachable like /var/lib, and removed afterwards.
  systemDir = mkdtempSync(join(tmpdir(), 'credit-system-'));
  chmodSync(systemDir, 0o755);
});
test.after(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  rmSync(systemDir, { recursive: true, force: true });
});

interface ServiceProcess {
  child: ChildProcess;
  url: string;
  /** Every line the service wrote (JSON log lines on stdout, anything on stderr). */
  output: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startProcess(cwd: string, env: Record<string, string>, port: number): ServiceProcess {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['DATABASE_URL', 'EVENTSTORE_URL', 'PUBLIC_BASE_URL', 'DATA_DIR']) delete inherited[name];
  const full = { ...inherited, LOG_LEVEL: 'info', EMBEDDED_PG_SYSTEM_DIR: systemDir, PORT: String(port), ...env };
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { cwd, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const collect = (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, url: `http://127.0.0.1:${port}`, output, exited };
}

const tail = (service: ServiceProcess) => service.output.slice(-15).join('\n');

/** Polls until `check` holds or the time is up; fails at once if the service process ended. */
async function until(service: ServiceProcess, what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  let ended = false;
  void service.exited.then(() => (ended = true));
  await eventually(
    async () => {
      if (ended) throw new Error(`${what}: the service exited\n${tail(service)}`);
      return check();
    },
    { timeoutMs, what: () => `${what}\n${tail(service)}` },
  );
}

const answers = (url: string) => async () => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(10_000) })).status === 200;
  } catch {
    return false;
  }
};

async function healthy(service: ServiceProcess): Promise<void> {
  await until(service, 'GET /health answers 200', answers(`${service.url}/health`), START_TIMEOUT_MS);
  await until(service, 'GET /ready answers 200', answers(`${service.url}/ready`), START_TIMEOUT_MS);
}

async function exitOf(service: ServiceProcess, timeoutMs: number, what: string) {
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), timeoutMs).unref());
  const result = await Promise.race([service.exited, timeout]);
  if (result === 'timeout') throw new Error(`still running ${timeoutMs} ms ${what}\n${tail(service)}`);
  return result;
}

async function stopped(service: ServiceProcess, signal: NodeJS.Signals) {
  service.child.kill(signal);
  return exitOf(service, STOP_TIMEOUT_MS, `after ${signal}`);
}

/** A start that comes up: ready, then `whileUp` (with the service), then SIGTERM and a clean exit. */
async function upThenStopped<T>(env: Record<string, string>, port: number, whileUp: (service: ServiceProcess) => T): Promise<T> {
  const service = startProcess(repo, env, port);
  await healthy(service);
  const result = whileUp(service);
  assert.equal(await stopped(service, 'SIGTERM'), { code: 0, signal: null }, tail(service));
  return result;
}

/** Exit code 1 and, for all output, one fatal log line saying what, why and the fix, without a stack. */
async function refusedInOneLine(service: ServiceProcess, ...says: RegExp[]): Promise<void> {
  assert.equal(await exitOf(service, START_TIMEOUT_MS, 'after a refused start'), { code: 1, signal: null }, tail(service));
  // Every sandbox start first warns which of its parts are sandbox (test/foundation/deployment.test.ts): the refusal is the one line besides it.
  const output = service.output.filter((text) => !text.includes('"deployment":"sandbox"'));
  assert.is(output.length, 1, `one line:\n${service.output.join('\n')}`);
  const line = JSON.parse(output[0]!);
  assert.is(line.level, 60);
  for (const pattern of [...says, /fix: /]) assert.match(line.msg, pattern);
  assert.is(line.err, undefined, 'no stack trace');
}

/**
 * The cluster served on `port`, in one of the two places docs/running.md names: DATA_DIR/pg, or
 * EMBEDDED_PG_SYSTEM_DIR/clusters/<hash> as root when the 'postgres' user cannot reach DATA_DIR.
 */
function clusterOn(dataDir: string, port: number): { dir: string; postmaster: number } {
  const candidates = [join(dataDir, 'pg'), ...(existsSync(join(systemDir, 'clusters')) ? readdirSync(join(systemDir, 'clusters')).map((name) => join(systemDir, 'clusters', name)) : [])];
  for (const dir of candidates) {
    const pidFile = join(dir, 'postmaster.pid');
    if (!existsSync(pidFile)) continue;
    const lines = readFileSync(pidFile, 'utf8').split('\n');
    if (Number(lines[3]) === port) return { dir, postmaster: Number(lines[0]) };
  }
  throw new Error(`no cluster serves port ${port} in ${candidates.join(', ')}`);
}

/** The postmaster and every process it started, and a cleanup that kills whatever a failed test leaves. */
function postgresProcesses(postmaster: number): [number, ...number[]] {
  const children = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => processStat(pid)?.ppid === postmaster);
  const all: [number, ...number[]] = [postmaster, ...children];
  cleanups.push(() => {
    for (const pid of all.filter(isPostgres)) process.kill(pid, 'SIGKILL');
  });
  return all;
}

function assertNoneRuns(pids: number[], when: string): void {
  assert.equal(pids.filter(isPostgres), [], `PostgreSQL processes still running ${when}`);
}

/** A copy of this repository as a user's clone would be, node_modules included (hard links when the file system allows). */
function cloneInto(folder: string): string {
  const clone = join(folder, 'credit-analysis');
  mkdirSync(clone);
  const entries = readdirSync(repo)
    .filter((name) => !['.git', 'data', '.tmp'].includes(name))
    .map((name) => join(repo, name));
  if (spawnSync('cp', ['-al', ...entries, clone]).status !== 0) {
    rmSync(clone, { recursive: true, force: true });
    mkdirSync(clone);
    assert.is(spawnSync('cp', ['-a', ...entries, clone]).status, 0, 'copy of the repository');
  }
  return clone;
}

test('a clone under a 0700 folder starts with the default DATA_DIR, and SIGTERM leaves no PostgreSQL running', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'credit-home-'));
  cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
  assert.is(statSync(parent).mode & 0o777, 0o700, 'a parent only its owner can enter, as /root');
  const clone = cloneInto(parent);
  const pgPort = await freePort();
  const service = startProcess(clone, { EMBEDDED_PG_PORT: String(pgPort) }, await freePort());
  await healthy(service);

  const cluster = clusterOn(join(clone, 'data'), pgPort);
  if (asRoot) {
    assert.ok(cluster.dir.startsWith(join(systemDir, 'clusters')), `as root the cluster moves where the 'postgres' user can reach it: ${cluster.dir}`);
    assert.ok(
      readdirSync(systemDir).some((name) => name.startsWith('postgres-')),
      'and so do the binaries under node_modules',
    );
  }
  assert.ok(existsSync(join(clone, 'data', 'jwt.secret')), 'secrets stay in DATA_DIR');
  const processes = postgresProcesses(cluster.postmaster);

  assert.equal(await stopped(service, 'SIGTERM'), { code: 0, signal: null }, tail(service));
  assertNoneRuns(processes, 'after SIGTERM');
  assert.not.ok(existsSync(join(cluster.dir, 'postmaster.pid')), 'the server shut down cleanly');
});

test('a DATA_DIR made by mktemp -d: starts; after kill -9 the next start stops the orphaned PostgreSQL and comes up', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-mktemp-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
  const port = await freePort();

  const first = startProcess(repo, env, port);
  await healthy(first);
  const orphaned = postgresProcesses(clusterOn(dataDir, Number(env.EMBEDDED_PG_PORT)).postmaster);
  assert.equal(await stopped(first, 'SIGKILL'), { code: null, signal: 'SIGKILL' });
  assert.ok(isPostgres(orphaned[0]), 'kill -9 left the embedded PostgreSQL running, holding its port and postmaster.pid');

  const second = startProcess(repo, env, port);
  await healthy(second);
  assertNoneRuns(orphaned, 'of the killed service once the next one started');
  const processes = postgresProcesses(clusterOn(dataDir, Number(env.EMBEDDED_PG_PORT)).postmaster);

  assert.equal(await stopped(second, 'SIGTERM'), { code: 0, signal: null }, tail(second));
  assertNoneRuns(processes, 'after SIGTERM');
});

test('a DATA_DIR removed and made again at the same path (a fresh clone in the same folder): starts on a new cluster, the old one set aside', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-again-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
  const port = await freePort();

  const clusterNow = () => clusterOn(dataDir, Number(env.EMBEDDED_PG_PORT)).dir;
  const before = await upThenStopped(env, port, clusterNow);

  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { mode: 0o700 });
  const { after, output } = await upThenStopped(env, port, (second) => ({ after: clusterNow(), output: second.output }));
  if (asRoot) {
    // Kept aside, the first cluster outlived its DATA_DIR, and would refuse the new password.
    assert.is(after, before, 'the new cluster takes the same place');
    const setAside = readdirSync(join(systemDir, 'clusters')).filter((name) => name.startsWith(`${before.split('/').at(-1)}.replaced-`));
    assert.is(setAside.length, 1, 'the old cluster is set aside, not deleted');
    assert.ok(existsSync(join(systemDir, 'clusters', setAside[0]!, 'PG_VERSION')), 'with its data');
    assert.ok(
      output.some((line) => /set aside as/.test(line) && JSON.parse(line).level === 40),
      `a warning says where:\n${output.join('\n')}`,
    );
    assert.is(output.filter((line) => /the cluster is in/.test(line)).length, 1, `where the cluster is, said once:\n${output.join('\n')}`);
  }
});

test('a cluster that refuses the password in DATA_DIR: exit 1 at once with one line naming the cluster and the fix', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-refused-'));
  // Reachable by the 'postgres' user, so the cluster is DATA_DIR/pg as root too: never set aside.
  chmodSync(dataDir, 0o755);
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
  const port = await freePort();
  await upThenStopped(env, port, () => undefined);

  rmSync(join(dataDir, 'postgres-password.secret'));
  const started = Date.now();
  // At warn: from a clone the 'postgres' user cannot reach, an info line says where its binaries run from.
  const second = startProcess(repo, { ...env, LOG_LEVEL: 'warn' }, port);
  await refusedInOneLine(second, new RegExp(`cluster ${join(dataDir, 'pg')} refused the password`));
  // It used to wait for the server to answer until the start-up timeout (120 s), then blame the port.
  assert.ok(Date.now() - started < 100_000, `refused in ${Date.now() - started} ms`);
});

test('a cluster another live service runs, refusing the password in DATA_DIR: exit 1 at once, the cluster left running', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-shared-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
  const first = startProcess(repo, env, await freePort());
  await healthy(first);
  const processes = postgresProcesses(clusterOn(dataDir, Number(env.EMBEDDED_PG_PORT)).postmaster);

  rmSync(join(dataDir, 'postgres-password.secret'));
  const second = startProcess(repo, { ...env, LOG_LEVEL: 'warn' }, await freePort());
  await refusedInOneLine(second, /refused the password/);
  assert.ok(processes.every(isPostgres), 'the first service keeps its cluster');
  assert.ok(await answers(`${first.url}/ready`)(), 'and keeps serving');
  assert.equal(await stopped(first, 'SIGTERM'), { code: 0, signal: null }, tail(first));
});

test('a DATA_DIR that cannot be used: exit 1 with one line naming the path, the reason and the fix', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'credit-bad-'));
  cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
  writeFileSync(join(folder, 'file'), '');
  const dataDir = join(folder, 'file', 'data');
  const service = startProcess(repo, { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) }, await freePort());
  await refusedInOneLine(service, new RegExp(`DATA_DIR ${dataDir} `), /ENOTDIR/);
});

test('a PORT another program holds: exit 1 with one line naming it and the fix', async () => {
  const database = await createTestDatabase({ migrate: false });
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-port-'));
  const holder = createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  try {
    const service = startProcess(repo, { DATABASE_URL: database.url, DATA_DIR: dataDir, HOST: '127.0.0.1', LOG_LEVEL: 'warn' }, port);
    await refusedInOneLine(service, new RegExp(`PORT ${port} `), /EADDRINUSE/);
  } finally {
    await new Promise((resolve) => holder.close(resolve));
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('PUBLIC_BASE_URL: defaults to the listening host and port; an explicit value wins', async () => {
  assert.is(loadConfig({ PORT: '8080' }).PUBLIC_BASE_URL, 'http://localhost:8080');
  assert.is(loadConfig({ PORT: '8080', HOST: '10.0.0.5' }).PUBLIC_BASE_URL, 'http://10.0.0.5:8080');
  assert.is(loadConfig({ PORT: '8080', PUBLIC_BASE_URL: 'https://credit.example.com' }).PUBLIC_BASE_URL, 'https://credit.example.com');

  // On an ephemeral port (PORT=0) the link names the port actually bound, and works as handed out.
  const app = await startTestApp();
  try {
    const { token } = await provisionTenant(app);
    const policyId = (await app.call('POST', '/credit-policy/policy', { token, body: DEMO_CNPJ_POLICY })).body.id;
    const reportId = (await app.call('POST', '/v2/report', { token, body: { document: '11222333000181', type: 'cnpj', policyId } })).body.id;
    await waitForReport(app, token, reportId, 60_000);
    const exported = await app.call('POST', `/report/${reportId}/export`, { token, body: { format: 'pdf' } });
    assert.is(exported.status, 200, JSON.stringify(exported.body));
    assert.ok(exported.body.url.startsWith(`${app.url}/`), `${exported.body.url} is served by ${app.url}`);
    assert.is((await fetch(exported.body.url)).status, 200);
  } finally {
    await app.stop();
  }
});

test.run();

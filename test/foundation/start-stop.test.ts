import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { processStat } from '../../platform/database/embedded.ts';
import { freePort } from '../support/cluster.ts';
import { eventually } from '../support/wait.ts';

/**
 * `npm start` as an operator runs it, stopped by a signal to each process an operator may pick:
 * npm, the tsx launcher, the service, or the whole process group (Ctrl-C, systemd, timeout), and
 * the service killed with -9. Each time, every process of the tree (npm, its shell, tsx, the
 * service, PostgreSQL and its watchdog) must be gone within a bounded time, PostgreSQL shut down
 * cleanly. One DATA_DIR for all: the cluster is made once, each start after reuses it.
 */
const test = suite('npm start, stopped whichever process is signalled');

const repo = fileURLToPath(new URL('../..', import.meta.url));
// Generous for a loaded 2-core machine: the first start runs initdb.
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;
let dataDir: string;

test.before(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'credit-startstop-'));
  chmodSync(dataDir, 0o755);
});
test.after(() => rmSync(dataDir, { recursive: true, force: true }));

/** A process as it was when seen: its pid and its start time, so a reused pid is not taken for it. */
interface Seen {
  pid: number;
  started: string;
  what: string;
}

function seen(pid: number, what: string): Seen | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime), counted after the command name, which may hold spaces.
    return { pid, started: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!, what };
  } catch {
    return undefined;
  }
}

function stillRuns(process: Seen): boolean {
  const now = seen(process.pid, process.what);
  return now !== undefined && now.started === process.started && processStat(process.pid)?.state !== 'Z';
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** `root` and every process below it (Linux /proc), named by their command lines for a failure message. */
function tree(root: number): Seen[] {
  const parents = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = processStat(Number(name))?.ppid;
    if (ppid !== undefined) parents.set(ppid, [...(parents.get(ppid) ?? []), Number(name)]);
  }
  const all: Seen[] = [];
  for (const pending = [root]; pending.length > 0;) {
    const pid = pending.pop()!;
    const found = seen(pid, cmdline(pid));
    if (found) all.push(found);
    pending.push(...(parents.get(pid) ?? []));
  }
  return all;
}

interface Started {
  npm: ChildProcess;
  output: string[];
  /** Every process of the tree once the service answered, by role. */
  roles: { npm: number; tsx: number; service: number; postmaster: number };
  processes: Seen[];
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status === 200;
  } catch {
    return false;
  }
}

/** `npm start` in a process group of its own, as a shell runs a command; resolves once /ready answers. */
async function npmStart(cleanups: (() => void)[]): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info' };
  for (const name of ['DATABASE_URL', 'EVENTSTORE_URL', 'PUBLIC_BASE_URL']) delete env[name];
  const npm = spawn('npm', ['start'], { cwd: repo, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  for (const stream of [npm.stdout!, npm.stderr!]) stream.on('data', (chunk: Buffer) => output.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  let processes: Seen[] = [];
  cleanups.push(() => {
    for (const process_ of processes.filter(stillRuns)) process.kill(process_.pid, 'SIGKILL');
    if (processes.length === 0 && npm.exitCode === null) process.kill(-npm.pid!, 'SIGKILL');
  });
  await eventually(
    async () => {
      if (npm.exitCode !== null) throw new Error(`npm start exited before it was ready\n${output.slice(-15).join('\n')}`);
      return answers(`http://127.0.0.1:${port}/ready`);
    },
    { timeoutMs: START_TIMEOUT_MS, what: () => `npm start to become ready\n${output.slice(-15).join('\n')}` },
  );
  const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const service = processStat(postmaster)!.ppid;
  const tsx = processStat(service)!.ppid;
  processes = tree(npm.pid!);
  const pids = processes.map((p) => p.pid);
  for (const pid of [service, tsx, postmaster]) assert.ok(pids.includes(pid), `process ${pid} is in npm's tree`);
  assert.match(cmdline(tsx), /tsx/, 'the service runs under the tsx launcher');
  assert.ok(
    processes.some((p) => p.what.includes('postgres-watchdog')),
    'a watchdog stops PostgreSQL if the service dies',
  );
  return { npm, output, roles: { npm: npm.pid!, tsx, service, postmaster }, processes };
}

/** Every process of the tree gone within STOP_TIMEOUT_MS, and PostgreSQL shut down, not killed. */
async function nothingLeft(started: Started, after: string): Promise<void> {
  await eventually(() => !started.processes.some(stillRuns), {
    timeoutMs: STOP_TIMEOUT_MS,
    what: () => {
      const left = started.processes.filter(stillRuns).map((p) => `${p.pid} ${p.what}`);
      return `every process to stop after ${after}; still running:\n${left.join('\n')}\n${started.output.slice(-10).join('\n')}`;
    },
  });
  assert.not.ok(existsSync(join(dataDir, 'pg', 'postmaster.pid')), `PostgreSQL shut down cleanly after ${after} (no postmaster.pid left)`);
}

/** `npm start`, then `stop` (the signal of the test) and what must hold after; a failure leaves nothing running for the next test. */
async function startThenStop(stop: (started: Started) => void, after: string, clean: boolean): Promise<void> {
  const cleanups: (() => void)[] = [];
  try {
    const started = await npmStart(cleanups);
    stop(started);
    await nothingLeft(started, after);
    if (clean) stoppedCleanly(started);
  } finally {
    for (const cleanup of cleanups) cleanup();
  }
}

/** The service's own log says it stopped: it ran its stop to the end. */
function stoppedCleanly(started: Started): void {
  const messages = started.output.flatMap((line) => {
    try {
      return [(JSON.parse(line) as { msg: string }).msg];
    } catch {
      return [];
    }
  });
  assert.ok(messages.includes('stopping') && messages.includes('stopped'), started.output.slice(-10).join('\n'));
}

test('SIGTERM to the service: it stops, then tsx and npm exit', async () => {
  await startThenStop((started) => process.kill(started.roles.service, 'SIGTERM'), 'SIGTERM to the service', true);
});

test('SIGTERM to npm (which only its shell receives): the service sees its launchers go and stops', async () => {
  await startThenStop((started) => process.kill(started.roles.npm, 'SIGTERM'), 'SIGTERM to npm', true);
});

// tsx gives the service 30 ms to acknowledge a relayed signal, then kills it with -9: on a busy
// machine it may, in the middle of the stop, so only the outcome is asserted here (the README's Set up says so).
test('SIGTERM to tsx: it relays the signal, the service stops', async () => {
  await startThenStop((started) => process.kill(started.roles.tsx, 'SIGTERM'), 'SIGTERM to tsx', false);
});

test('SIGTERM to the process group (systemd, timeout; Ctrl-C is the same with SIGINT): the service, signalled twice, stops once', async () => {
  await startThenStop((started) => process.kill(-started.roles.npm, 'SIGTERM'), 'SIGTERM to the process group', false);
});

test('kill -9 of the service: its watchdog stops PostgreSQL, and tsx and npm exit', async () => {
  await startThenStop((started) => process.kill(started.roles.service, 'SIGKILL'), 'SIGKILL to the service', false);
});

if (existsSync('/proc/self/stat'))
  test.run(); // finding the tree of processes needs Linux's /proc
else console.log('npm start stop tests skipped: they follow processes through /proc');

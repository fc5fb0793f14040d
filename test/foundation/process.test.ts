import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRoles } from '../../service/bootstrap.ts';
import { freePort } from '../support/cluster.ts';

const test = suite('service process');

async function waitForHealth(url: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/health`)).status === 200) return true;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

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
    const started = Date.now();
    assert.ok(await waitForHealth(`http://127.0.0.1:${port}`, started + 60_000), 'healthy within 60 s');
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

test.run();

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { demoSeeders } from '../../application/demo.ts';
import { MODULES, PERMISSIONS } from '../../domain/identity/access.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { authenticateOverHttp } from '../support/identity.ts';
import { ConsoleBrowser } from '../support/console-browser.ts';
import { PATIENT_READ_YOUR_WRITES } from './patient.ts';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json?: any;
}

/** The CLI as operators run it: a child process whose whole stdout must be one JSON object. */
function provision(databaseUrl: string, dataDir: string, args: string[], stdin?: string): Promise<Run> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/provision.ts', ...args], {
    env: { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (stdin !== undefined) child.stdin!.end(stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk));
  return new Promise((resolve) =>
    child.on('close', (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        // left undefined: the assertions say what was printed
      }
      resolve({ code: code ?? 1, stdout, stderr, json });
    }),
  );
}

interface Ctx {
  app: TestApp;
  idle: TestDatabase;
  dataDir: string;
}
const test = suite<Ctx>('identity: provisioning CLI');

test.before(async (ctx) => {
  ctx.app = await startTestApp(PATIENT_READ_YOUR_WRITES);
  ctx.idle = await createTestDatabase();
  ctx.dataDir = mkdtempSync(join(tmpdir(), 'credit-cli-'));
});
test.after(async (ctx) => {
  await ctx.app.stop();
  await ctx.idle.drop();
  rmSync(ctx.dataDir, { recursive: true, force: true });
});

test('while the service runs: one JSON object, a credential that authenticates, then --revoke', async ({ app }) => {
  const run = await provision(app.database.url, app.app.config.DATA_DIR, ['--org', 'Acme Ltda', '--modules', 'reports,proposals', '--permissions', 'can-generate-report']);
  assert.is(run.code, 0, run.stderr);
  assert.ok(run.json, `stdout was: ${run.stdout}`);
  const out = run.json;
  for (const field of ['organizationId', 'userId', 'credentialId']) assert.match(out[field], /^[0-9a-f]{24}$/);
  assert.match(out.clientId, /^cli_[0-9a-f]{24}$/);
  assert.ok(Buffer.from(out.clientSecret, 'base64url').length >= 32);
  assert.equal(out.modules, ['reports', 'proposals']);
  assert.equal(out.permissions, ['can-generate-report']);

  const session = await authenticateOverHttp(app, out.clientId, out.clientSecret);
  assert.is(session.status, 200, JSON.stringify(session.body));
  assert.is(session.body.organizationId, out.organizationId);

  const revoked = await provision(app.database.url, app.app.config.DATA_DIR, ['--revoke', out.clientId]);
  assert.is(revoked.code, 0, revoked.stderr);
  assert.is(revoked.json.clientId, out.clientId);
  assert.ok(revoked.json.revokedAt);
  assert.equal((await authenticateOverHttp(app, out.clientId, out.clientSecret)).body, { code: 400, message: Messages.invalidClientId });
  const live = await app.call('GET', '/auth/session', { token: session.body.accessToken });
  assert.is(live.status, 401);
});

test('with no service running: defaults to every module and permission, read tables ready on exit, --demo', async ({ idle, dataDir }) => {
  const run = await provision(idle.url, dataDir, ['--org', 'Demo', '--demo']);
  assert.is(run.code, 0, run.stderr);
  assert.equal(run.json.modules, [...MODULES]);
  assert.equal(run.json.permissions, [...PERMISSIONS]);
  const row = await idle.knex('identity_credentials').where({ client_id: run.json.clientId }).first();
  assert.ok(row, 'the CLI projected its writes before exiting');
  assert.is(row.revoked_at, null);
  assert.not.ok(row.secret_hash.includes(run.json.clientSecret));
  assert.match(row.secret_hash, /^scrypt\$N=\d+,r=\d+,p=\d+\$/);
  // Each module's demo seeder added its part (credit policies, ...) without error.
  assert.is(run.json.demoErrors, undefined);
  if (demoSeeders.some((s) => s.name === 'credit-policy')) assert.ok(Array.isArray(run.json.policies) && run.json.policies.length >= 2, JSON.stringify(run.json));
});

test('e-mail addresses: set at provisioning (lower case), one user each, changed with --set-email, the old one free again', async ({ idle, dataDir }) => {
  const first = await provision(idle.url, dataDir, ['--org', 'Primeira', '--email', ' Ana.Souza@Example.COM ']);
  assert.is(first.code, 0, first.stderr);
  assert.is(first.json.email, 'ana.souza@example.com');
  const second = await provision(idle.url, dataDir, ['--org', 'Segunda']);
  assert.is(second.json.email, null);

  const taken = await provision(idle.url, dataDir, ['--set-email', second.json.userId, '--email', 'ANA.SOUZA@example.com']);
  assert.is(taken.code, 1);
  assert.is(taken.stdout, '');
  assert.match(taken.stderr, Messages.emailInUse);
  const invalid = await provision(idle.url, dataDir, ['--set-email', second.json.userId, '--email', 'ana@']);
  assert.match(invalid.stderr, Messages.invalidEmail);

  const moved = await provision(idle.url, dataDir, ['--set-email', first.json.userId, '--email', 'ana@banco.com.br']);
  assert.equal(moved.json, { userId: first.json.userId, organizationId: first.json.organizationId, email: 'ana@banco.com.br' });
  const freed = await provision(idle.url, dataDir, ['--set-email', second.json.userId, '--email', 'ana.souza@example.com']);
  assert.is(freed.code, 0, freed.stderr);
  const rows: Array<{ id: string; email: string }> = await idle.knex('identity_users').whereIn('id', [first.json.userId, second.json.userId]).select('id', 'email');
  assert.equal(Object.fromEntries(rows.map((r) => [r.id, r.email])), { [first.json.userId]: 'ana@banco.com.br', [second.json.userId]: 'ana.souza@example.com' });
});

test('--set-password reads the password from stdin and the user signs in to the console with it', async ({ app }) => {
  const { DATA_DIR } = app.app.config;
  const tenant = await provision(app.database.url, DATA_DIR, ['--org', 'Console Ltda', '--email', 'carla@console.example']);
  const short = await provision(app.database.url, DATA_DIR, ['--set-password', tenant.json.userId], 'curta\n');
  assert.is(short.code, 1);
  assert.match(short.stderr, Messages.passwordLength);
  const set = await provision(app.database.url, DATA_DIR, ['--set-password', tenant.json.userId], 'uma senha bem longa\n');
  assert.is(set.code, 0, set.stderr);
  assert.equal(set.json, { userId: tenant.json.userId, organizationId: tenant.json.organizationId, email: 'carla@console.example' });
  const browser = new ConsoleBrowser(app);
  assert.is((await browser.signIn('carla@console.example', 'uma senha bem longa')).status, 303);
});

test('bad arguments print nothing on stdout and fail', async ({ idle, dataDir }) => {
  const cases = [
    ['--org', 'X', '--modules', 'reports,kycEnabled'],
    ['--org', 'X', '--permissions', 'admin'],
    [],
    ['--org', 'X', '--revoke', 'y'],
    ['--revoke', 'cli_unknown'],
    ['--set-email', 'a'.repeat(24)],
  ];
  const runs = await Promise.all(cases.map((args) => provision(idle.url, dataDir, args)));
  for (const [i, run] of runs.entries()) {
    const args = cases[i]!;
    assert.is.not(run.code, 0, args.join(' '));
    assert.is(run.stdout, '', args.join(' '));
    assert.ok(run.stderr.length > 0);
  }
});

test.run();

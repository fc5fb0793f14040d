import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GENERATED_P12, generateP12, loadSigningIdentity } from '../../../application/collection/signed-document/certificate.ts';
import { ConfigurationError, loadConfig } from '../../../config/index.ts';

const test = suite<{ dirs: string[] }>('the signing certificate: generated once into DATA_DIR, or configured');

test.before((ctx) => {
  ctx.dirs = [];
});
test.after((ctx) => ctx.dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function freshDir(ctx: { dirs: string[] }): string {
  const dir = mkdtempSync(join(tmpdir(), 'signing-cert-'));
  ctx.dirs.push(dir);
  return dir;
}

function fingerprintFromChild(dataDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/signing-certificate-child.ts'], { env: { ...process.env, DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`child exited with ${code}`))));
  });
}

test('two processes starting at once on an empty DATA_DIR end with one certificate, kept 0600', async (ctx) => {
  const dataDir = freshDir(ctx);
  const [a, b] = await Promise.all([fingerprintFromChild(dataDir), fingerprintFromChild(dataDir)]);
  assert.match(a, /^[0-9a-f]{64}$/);
  assert.is(a, b);
  for (const file of [GENERATED_P12, 'signing-certificate-password.secret']) assert.is(statSync(join(dataDir, file)).mode & 0o777, 0o600, file);
  // A later start (a restart) opens the same one instead of generating another.
  assert.is(await fingerprintFromChild(dataDir), a);
});

test('SIGNING_P12_BASE64 or SIGNING_P12_PATH with SIGNING_P12_PASSWORD: the configured certificate, nothing generated', (ctx) => {
  const dataDir = freshDir(ctx);
  const p12 = generateP12('senha de teste');
  const fromBase64 = loadSigningIdentity(loadConfig({ DATA_DIR: dataDir, SIGNING_P12_BASE64: p12.toString('base64'), SIGNING_P12_PASSWORD: 'senha de teste' }));
  const file = join(dataDir, 'configured.p12');
  writeFileSync(file, p12);
  const fromPath = loadSigningIdentity(loadConfig({ DATA_DIR: dataDir, SIGNING_P12_PATH: file, SIGNING_P12_PASSWORD: 'senha de teste' }));
  assert.is(fromBase64.fingerprint, fromPath.fingerprint);
  assert.is(fromPath.source, `SIGNING_P12_PATH=${file}`);
  assert.throws(() => statSync(join(dataDir, GENERATED_P12)));
});

test('a wrong password, an unreadable file or both settings at once stop the start with a ConfigurationError', (ctx) => {
  const dataDir = freshDir(ctx);
  const base64 = generateP12('certa').toString('base64');
  const refused = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => loadSigningIdentity(loadConfig({ DATA_DIR: dataDir, ...env })),
      (error: Error) => error instanceof ConfigurationError && message.test(error.message),
    );
  refused({ SIGNING_P12_BASE64: base64, SIGNING_P12_PASSWORD: 'errada' }, /SIGNING_P12_BASE64: the PKCS#12 cannot be opened/);
  refused({ SIGNING_P12_PATH: join(dataDir, 'absent.p12') }, /cannot be read \(ENOENT\)/);
  refused({ SIGNING_P12_PATH: join(dataDir, 'absent.p12'), SIGNING_P12_BASE64: base64 }, /both set/);
});

test.run();

import { spawn } from 'node:child_process';
import { createCipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jwt from 'jsonwebtoken';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigurationError, keyringFor, loadConfig, loadOrCreateSecret } from '../../config/index.ts';
import { parseKeyring } from '../../config/secrets.ts';
import { signSessionToken, tokenKeys, tokenSigningKey, verifySessionToken } from '../../application/identity/tokens.ts';
import { signedDownloadUrl, verifyDownload } from '../../application/report/export/signed-url.ts';
import { SecretBox } from '../../platform/secrets/secret-box.ts';

const test = suite('secrets: keys from configuration, key ids, rotation, race-free creation');

const secret = (c: string) => c.repeat(40);
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'secrets-test-'));
  dirs.push(dir);
  return dir;
};
test.after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

test('a keyring is kid:secret pairs or JSON; a bare secret is the legacy key; bad rings name their source', () => {
  const ring = parseKeyring(`new:${secret('a')}, old:${secret('b')}`, 'JWT_KEYS');
  assert.equal([ring.primary.kid, ring.get('old')?.secret], ['new', secret('b')]);
  assert.is(parseKeyring(JSON.stringify([{ kid: 'j', secret: secret('c') }]), 'X').primary.kid, 'j');
  assert.is(parseKeyring(secret('d'), 'X').primary.kid, 'legacy');
  for (const [text, problem] of [
    ['', /no key/],
    ['a:short', /shorter than 32/],
    [`a.b:${secret('e')}`, /key id/],
    [`a:${secret('e')},a:${secret('f')}`, /twice/],
    ['[{', /JSON/],
  ] as const) {
    assert.throws(
      () => parseKeyring(text, 'SEALING_KEYS'),
      (e: Error) => e instanceof ConfigurationError && e.message.startsWith('SEALING_KEYS') && problem.test(e.message),
    );
  }
});

test('keys come from the setting, from a file the _FILE setting names, or are generated into DATA_DIR', () => {
  const dataDir = tempDir();
  const file = join(dataDir, 'ring.txt');
  writeFileSync(file, `fromfile:${secret('f')}\n`);
  assert.is(keyringFor(loadConfig({ DATA_DIR: dataDir, JWT_KEYS: `env:${secret('e')}` }), 'jwt').primary.kid, 'env');
  assert.is(keyringFor(loadConfig({ DATA_DIR: dataDir, SEALING_KEYS_FILE: file }), 'sealing').primary.kid, 'fromfile');
  assert.is(keyringFor(loadConfig({ DATA_DIR: dataDir, JWT_SECRET: `with:colon:${secret('s')}` }), 'jwt').primary.kid, 'legacy');
  const generated = keyringFor(loadConfig({ DATA_DIR: dataDir }), 'downloads');
  assert.match(generated.primary.kid, /^k[0-9a-f]{8}$/);
  assert.is(readFileSync(join(dataDir, 'downloads.secret'), 'utf8'), `${generated.primary.kid}:${generated.primary.secret}`);
  assert.throws(
    () => keyringFor(loadConfig({ DATA_DIR: dataDir, DOWNLOAD_URL_KEYS_FILE: join(dataDir, 'missing') }), 'downloads'),
    (e: Error) => e instanceof ConfigurationError && /DOWNLOAD_URL_KEYS_FILE=.*missing cannot be read \(ENOENT\)/.test(e.message),
  );
  assert.throws(() => keyringFor(loadConfig({ DATA_DIR: dataDir, JWT_KEYS: `a:${secret('a')}`, JWT_SECRET: secret('b') }), 'jwt'), /both set/);
});

test('a secret file left empty (a writer that died, or a reader that came too early) is a configuration error, never an empty key', () => {
  const dataDir = tempDir();
  writeFileSync(join(dataDir, 'jwt.secret'), '');
  assert.throws(
    () => loadOrCreateSecret(dataDir, 'jwt'),
    (e: Error) => e instanceof ConfigurationError && e.message.includes(join(dataDir, 'jwt.secret')),
  );
});

test('processes generating the same secret at once all end up with one complete secret', async () => {
  const dataDir = tempDir();
  const script = `import { keyringFor, loadConfig } from ${JSON.stringify(new URL('../../config/index.ts', import.meta.url).pathname)};
    process.stdout.write(keyringFor(loadConfig({ DATA_DIR: process.argv[1] }), 'sealing').primary.secret);`;
  const run = () =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (chunk) => (out += chunk));
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
    });
  const secrets = await Promise.all(Array.from({ length: 6 }, run));
  assert.is(new Set(secrets).size, 1);
  assert.ok(secrets[0]!.length >= 48);
});

test('sealed values name their key: they open after a rotation, a missing key is a configuration error, and values sealed before key ids open with the legacy key', () => {
  const old = parseKeyring(`old:${secret('o')}`, 'SEALING_KEYS');
  const rotated = parseKeyring(`new:${secret('n')},old:${secret('o')}`, 'SEALING_KEYS');
  const sealed = new SecretBox(old, 'p').seal('whsec_abc', 'sub-1');
  assert.match(sealed, /^v2\.old\./);
  assert.not.ok(sealed.includes('whsec_abc'));
  assert.is(new SecretBox(rotated, 'p').open(sealed, 'sub-1'), 'whsec_abc');
  assert.match(new SecretBox(rotated, 'p').seal('x', 'sub-1'), /^v2\.new\./);
  assert.throws(() => new SecretBox(rotated, 'p').open(sealed, 'sub-2'));
  assert.throws(() => new SecretBox(rotated, 'other purpose').open(sealed, 'sub-1'));
  assert.throws(
    () => new SecretBox(parseKeyring(`new:${secret('n')}`, 'SEALING_KEYS'), 'p').open(sealed, 'sub-1'),
    (e: Error) => e instanceof ConfigurationError && e.message.includes('"old"') && e.message.includes('SEALING_KEYS'),
  );
  // The format and derivation of the code before key ids.
  const material = secret('l');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(hkdfSync('sha256', material, 'webhook-signing-secrets', 'v1', 32)), iv);
  cipher.setAAD(Buffer.from('sub-9'));
  const data = Buffer.concat([cipher.update('whsec_old', 'utf8'), cipher.final()]);
  const v1 = ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  assert.is(new SecretBox(parseKeyring(`k:${secret('k')},${material}`, 'X'), 'webhook-signing-secrets').open(v1, 'sub-9'), 'whsec_old');
});

test('tokens carry their kid; the old key still verifies during a rotation; tokens without kid use the legacy key', () => {
  const id = 'a'.repeat(24);
  const session = { sessionId: id, userId: id, organizationId: id, issuedAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString() };
  const now = new Date();
  const before = tokenKeys(parseKeyring(`one:${secret('1')}`, 'JWT_KEYS'));
  const token = signSessionToken(before, session);
  assert.is(jwt.decode(token, { complete: true })!.header.kid, 'one');
  const during = tokenKeys(parseKeyring(`two:${secret('2')},one:${secret('1')}`, 'JWT_KEYS'));
  assert.is(verifySessionToken(during, token, now).sessionId, id);
  assert.is(jwt.decode(signSessionToken(during, session), { complete: true })!.header.kid, 'two');
  assert.throws(() => verifySessionToken(tokenKeys(parseKeyring(`two:${secret('2')}`, 'JWT_KEYS')), token, now), /Token/);
  const legacy = jwt.sign({ sub: id, org: id, sid: id }, tokenSigningKey(secret('L')), { algorithm: 'HS256' });
  assert.is(verifySessionToken(tokenKeys(parseKeyring(`two:${secret('2')},${secret('L')}`, 'JWT_KEYS')), legacy, now).userId, id);
  const forgedKid = jwt.sign({ sub: id, org: id, sid: id }, tokenSigningKey(secret('L')), { algorithm: 'HS256', keyid: 'two' });
  assert.throws(() => verifySessionToken(during, forgedKid, now));
});

test('download links carry their kid and stay valid while their key is in the ring; links without kid use the legacy key', () => {
  const dataDir = tempDir();
  const config = (keys: string) => loadConfig({ DATA_DIR: dataDir, DOWNLOAD_URL_KEYS: keys, PUBLIC_BASE_URL: 'http://x' });
  const expires = new Date(Date.now() + 60_000);
  const url = new URL(signedDownloadUrl(config(`one:${secret('1')}`), 'blob1', expires));
  const [exp, kid, signature] = (['expires', 'kid', 'signature'] as const).map((name) => url.searchParams.get(name)!) as [string, string, string];
  assert.is(kid, 'one');
  assert.ok(verifyDownload(config(`two:${secret('2')},one:${secret('1')}`), 'blob1', Number(exp), signature, new Date(), kid));
  assert.not.ok(verifyDownload(config(`two:${secret('2')}`), 'blob1', Number(exp), signature, new Date(), kid));
  assert.not.ok(verifyDownload(config(`two:${secret('2')},one:${secret('1')}`), 'blob2', Number(exp), signature, new Date(), kid));
  const legacy = new URL(signedDownloadUrl(config(secret('L')), 'blob1', expires));
  assert.is(legacy.searchParams.get('kid'), 'legacy');
  assert.ok(verifyDownload(config(`two:${secret('2')},${secret('L')}`), 'blob1', Number(exp), legacy.searchParams.get('signature')!, new Date()));
});

test.run();

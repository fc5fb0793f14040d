import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { productionRefusals, sandboxParts } from '../../config/deployment.ts';
import { loadConfig } from '../../config/index.ts';
import { createLogger } from '../../service/infrastructure.ts';
import { startTestApp } from '../support/app.ts';

/** Every setting a production deployment gives, so that nothing of the sandbox is left. */
const PRODUCTION: Record<string, string> = {
  DEPLOYMENT: 'production',
  SOURCES: 'brasilapi',
  IDENTITY_PROVIDER: 'facepp',
  LLM_PROVIDER: 'anthropic',
  WEB_SEARCH_PROVIDER: 'searxng',
  WEB_SEARCH_URL: 'https://busca.banco.example',
  SMTP_URL: 'smtps://banco:senha@smtp.banco.example:465',
  WHATSAPP_PROVIDER: 'cloud-api',
  SIGNING_P12_PATH: '/etc/credito/icp-brasil-a1.p12',
  JWT_KEYS_FILE: '/run/secrets/jwt',
  SEALING_KEYS_FILE: '/run/secrets/sealing',
  DOWNLOAD_URL_KEYS_FILE: '/run/secrets/downloads',
  PERSONAL_DATA_PEPPER_FILE: '/run/secrets/pepper',
  DATABASE_URL: 'postgres://credito@db.banco.example/credito',
};

/** Each sandbox setting, as it would be written, and the word its refusal line must name. */
const SANDBOX: Array<[Record<string, string | undefined>, RegExp]> = [
  [{ SOURCES: 'sandbox' }, /SOURCES=sandbox .*fix: set SOURCES/],
  [{ IDENTITY_PROVIDER: 'sandbox' }, /IDENTITY_PROVIDER=sandbox .*fix: set IDENTITY_PROVIDER=facepp/],
  [{ LLM_PROVIDER: 'offline' }, /LLM_PROVIDER=offline .*fix: set LLM_PROVIDER/],
  [{ WEB_SEARCH_PROVIDER: 'offline' }, /WEB_SEARCH_PROVIDER=offline .*fix: set WEB_SEARCH_PROVIDER=searxng/],
  [{ SMTP_URL: undefined }, /SMTP_URL is unset.*fix: set SMTP_URL/],
  [{ WHATSAPP_PROVIDER: 'sandbox' }, /WHATSAPP_PROVIDER=sandbox .*fix: set WHATSAPP_PROVIDER=cloud-api/],
  [{ SMS_PROVIDER: 'sandbox' }, /SMS_PROVIDER=sandbox .*fix: set SMS_PROVIDER=twilio/],
  [{ SIGNING_P12_PATH: undefined }, /self-signed certificate; fix: set one of them/],
  [{ JWT_KEYS_FILE: undefined }, /JWT_KEYS is not given.*fix: set JWT_KEYS or JWT_KEYS_FILE/],
  [{ SEALING_KEYS_FILE: undefined }, /SEALING_KEYS is not given/],
  [{ DOWNLOAD_URL_KEYS_FILE: undefined }, /DOWNLOAD_URL_KEYS is not given/],
  [{ PERSONAL_DATA_PEPPER_FILE: undefined }, /PERSONAL_DATA_PEPPER is not given/],
  [{ DATABASE_URL: undefined }, /embedded PostgreSQL would run.*fix: set DATABASE_URL/],
  [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, /WEBHOOK_ALLOW_PRIVATE_NETWORKS=true .*fix: unset it/],
];

const configWith = (patch: Record<string, string | undefined>) => {
  const env: Record<string, string> = { ...PRODUCTION };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return loadConfig(env);
};

test('production with every real provider given starts; each sandbox setting alone is refused with its own line naming the fix', () => {
  assert.equal(productionRefusals(configWith({})), []);
  assert.equal(sandboxParts(configWith({})), []);
  for (const [patch, line] of SANDBOX) {
    const refusals = productionRefusals(configWith(patch));
    assert.is(refusals.length, 1, `${JSON.stringify(patch)}: ${refusals.join(' | ')}`);
    assert.match(refusals[0]!, line);
    assert.match(refusals[0]!, /^DEPLOYMENT=production refuses: /);
  }
  assert.equal(productionRefusals(configWith({ DEPLOYMENT: 'sandbox', SOURCES: 'sandbox' })), [], 'sandbox mode refuses nothing');
});

test('a production start on the embedded defaults exits 1 before touching anything, one log line per setting', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'credit-production-'));
  try {
    const env: NodeJS.ProcessEnv = { ...process.env, DEPLOYMENT: 'production', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' };
    for (const name of ['DATABASE_URL', 'EVENTSTORE_URL', 'SMTP_URL']) delete env[name];
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.is(code, 1, output);
    const fatal = output
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((r) => r.level === 60)
      .map((r) => r.msg);
    assert.is(fatal.length, SANDBOX.length - 2, fatal.join('\n')); // all but WEBHOOK_ALLOW_PRIVATE_NETWORKS and SMS_PROVIDER=sandbox, off by default (SMS is none)
    for (const [, line] of SANDBOX.slice(0, -1).filter(([patch]) => !('SMS_PROVIDER' in patch)))
      assert.ok(
        fatal.some((msg) => line.test(msg)),
        `${line} in\n${fatal.join('\n')}`,
      );
    assert.not.ok(existsSync(join(dataDir, 'pg')), 'no embedded PostgreSQL was started');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a sandbox start logs one warning naming every sandbox part', async () => {
  const records: Array<Record<string, any>> = [];
  const log = createLogger(loadConfig({ LOG_LEVEL: 'fatal' }));
  log.addStream({ level: 'warn', stream: new Writable({ write: (chunk: Buffer, _e, done) => (records.push(JSON.parse(chunk.toString('utf8'))), done()) }) });
  const app = await startTestApp({}, { log });
  try {
    const warnings = records.filter((r) => r.deployment === 'sandbox');
    assert.is(warnings.length, 1);
    for (const part of ['credit sources', 'identity checks', 'language model', 'web search', 'e-mail', 'WhatsApp', 'signing certificate', 'WEBHOOK_ALLOW_PRIVATE_NETWORKS']) {
      assert.ok(
        warnings[0]!.sandbox.some((p: string) => p.includes(part)),
        `${part} in ${warnings[0]!.sandbox}`,
      );
    }
  } finally {
    await app.stop();
  }
});

test.run();

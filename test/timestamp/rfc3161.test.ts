import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../config/index.ts';
import { requestTimestamp, timestampAuthorityFrom, TimestampError, verifyTimestampToken, type TimestampAuthority } from '../../platform/timestamp/rfc3161.ts';
import { suiteNeeding } from '../support/system-tools.ts';
import { OPENSSL_TOOL, startTestTsa, type TestTsa } from '../support/tsa.ts';

const run = promisify(execFile);

interface Ctx {
  tsa: TestTsa;
  guarded: TestTsa;
}
const test = suiteNeeding<Ctx>('RFC 3161 client: a token from a TSA made with openssl, verified before use', [OPENSSL_TOOL]);

test.before(async (ctx) => {
  ctx.tsa = await startTestTsa();
  ctx.guarded = await startTestTsa({ username: 'cliente', password: 'segredo' });
});
test.after(async (ctx) => {
  await ctx.tsa?.stop();
  await ctx.guarded?.stop();
});

const authority = (tsa: TestTsa, env: Record<string, string> = {}): TimestampAuthority =>
  timestampAuthorityFrom(loadConfig({ TSA_URL: tsa.url, TSA_CA_CERTS_PATH: tsa.caPath, TSA_RETRIES: '0', ...env }))!;

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, TimestampError);
    return (error as Error).message;
  }
  throw new Error('expected a TimestampError');
}

test('a token for the SHA-256 of the data, with the TSA time; openssl ts -verify accepts it for the same data', async (ctx) => {
  const data = Buffer.from('valor da assinatura');
  const before = Date.now();
  const stamp = await requestTimestamp(authority(ctx.tsa), data);
  assert.ok(Math.abs(stamp.genTime.getTime() - before) < 60_000, stamp.genTime.toISOString());
  assert.is(stamp.policy, '1.3.6.1.4.1.99999.1');
  assert.equal(stamp.signerCertificate, ctx.tsa.tsaCertificate.der);
  const dataFile = join(ctx.tsa.dir, 'stamped.bin');
  const tokenFile = join(ctx.tsa.dir, 'token.der');
  writeFileSync(dataFile, data);
  writeFileSync(tokenFile, stamp.token);
  const { stdout } = await run('openssl', ['ts', '-verify', '-token_in', '-in', tokenFile, '-data', dataFile, '-CAfile', ctx.tsa.caPath]);
  assert.match(stdout, /Verification: OK/);
  // The stored token verifies later, alone, against the same data only.
  assert.is((await verifyTimestampToken(stamp.token, { data, trustAnchors: [ctx.tsa.ca.der] })).serialNumber, stamp.serialNumber);
  assert.match(await refusal(verifyTimestampToken(stamp.token, { data: Buffer.from('outro valor') })), /message imprint differs/);
  assert.match(await refusal(verifyTimestampToken(stamp.token, { data, nonce: Buffer.from('0102030405060708', 'hex') })), /nonce/);
});

test('TSA_CA_CERTS_PATH: a token whose signer does not chain to the configured anchors is refused', async (ctx) => {
  const message = await refusal(requestTimestamp(authority(ctx.tsa, { TSA_CA_CERTS_PATH: ctx.guarded.caPath }), Buffer.from('x')));
  assert.match(message, /signature does not verify.*certificate/i);
});

test('basic authentication: refused without it (401, not retried), a token with it', async (ctx) => {
  const before = ctx.guarded.requests['/tsa'] ?? 0;
  assert.match(await refusal(requestTimestamp(authority(ctx.guarded, { TSA_RETRIES: '3' }), Buffer.from('x'))), /HTTP 401/);
  assert.is(ctx.guarded.requests['/tsa'], before + 1);
  const stamp = await requestTimestamp(authority(ctx.guarded, { TSA_USERNAME: 'cliente', TSA_PASSWORD: 'segredo' }), Buffer.from('x'));
  assert.ok(stamp.token.length > 0);
});

test('a TSA answering 503 is tried again TSA_RETRIES times, then the failure says so', async (ctx) => {
  const before = ctx.tsa.requests['/tsa'] ?? 0;
  ctx.tsa.failNext(2);
  await requestTimestamp(authority(ctx.tsa, { TSA_RETRIES: '2' }), Buffer.from('y'));
  assert.is(ctx.tsa.requests['/tsa'], before + 3);
  ctx.tsa.failNext(2);
  assert.match(await refusal(requestTimestamp(authority(ctx.tsa, { TSA_RETRIES: '1' }), Buffer.from('y'))), /HTTP 503, after 2 attempts/);
});

test('an unreachable TSA fails within the timeout', async () => {
  // A port nothing listens on: connection refused, tried once more.
  const tsa = { ...timestampAuthorityFrom(loadConfig({ TSA_URL: 'http://127.0.0.1:9/tsa', TSA_RETRIES: '1', TSA_TIMEOUT_MS: '2000' }))! };
  assert.match(await refusal(requestTimestamp(tsa, Buffer.from('z'))), /could not be reached/);
});

test.run();

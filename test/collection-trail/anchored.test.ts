import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TRAIL_GENESIS, chainHashOf, entryHashOf, sealMessage } from '../../projections/collection/trail-chain.ts';
import { verifyTrail } from '../../scripts/verify-trail.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { startTestTsa, type TestTsa } from '../support/tsa.ts';
import { appendCollectionEvents, exportOf, newId, waitForSeals } from './support.ts';
import { eventually } from '../support/wait.ts';

/**
 * The trail anchored outside (issue 36, item 4): every entry sealed within TRAIL_SEAL_MAX_DELAY_S,
 * each seal timestamped by an RFC 3161 TSA (the test's, Debian's openssl), the sealing key rotated
 * by `npm run trail-keys`, and the offline verifier catching what a database writer could do.
 */
const test = suite('collection trail anchored outside: seals within the delay, timestamps, key rotation');
const DELAY_S = 2;
let app: TestApp;
let tsa: TestTsa;
let tenant: TestTenant;
const collectionId = newId();

test.before(async () => {
  tsa = await startTestTsa();
  app = await startTestApp({ TSA_URL: tsa.url, TSA_CA_CERTS_PATH: tsa.caPath, TRAIL_SEAL_MAX_DELAY_S: String(DELAY_S) });
  tenant = await provisionTenant(app);
  await appendCollectionEvents(app, tenant.organizationId, collectionId, ['CollectionCreated', 'CollectionSent']);
  await waitForSeals(app, collectionId);
});
test.after(async () => {
  await app?.stop();
  await tsa?.stop();
});

const keys = async () => (await app.call('GET', '/.well-known/collection-trail-keys')).body;
const exported = async () => JSON.parse((await exportOf(app, tenant.token, collectionId)).text);
const anchors = () => ({ tsaTrustAnchors: [tsa.ca.der] });
const trailEntries = async () => (await app.call('GET', `/v1/collections/${collectionId}/trail?take=500`, { token: tenant.token })).body.entries;

/** Waits for the positive signal: the entry `seq` covered by a seal (at it or after it). */
async function coveredBySeal(seq: number): Promise<any> {
  return eventually(async () => (await trailEntries()).find((e: any) => e.seq >= seq && e.seal), { timeoutMs: 30_000, what: `a seal covering entry ${seq}` });
}

test('an entry that is no status change is sealed, with a timestamp, once it has waited', async () => {
  await appendCollectionEvents(app, tenant.organizationId, collectionId, ['RecipientOpened']);
  // Queued as a head waiting for the delay, not as a status change.
  const covering = await coveredBySeal(3);
  assert.is(covering.seq, 3);
  assert.is(covering.seal.chainHash, covering.chainHash);
  assert.ok(covering.seal.timestamp, 'the seal carries its RFC 3161 token');
  const verdict = await verifyTrail(await exported(), await keys(), anchors());
  assert.ok(verdict.ok, verdict.problems.join('; '));
  assert.equal(
    verdict.seals.map((s) => s.seq),
    [1, 2, 3],
  );
  for (const seal of verdict.seals) assert.match(seal.timestampedAt ?? '', /^\d{4}-\d\d-\d\dT/, `seal ${seal.seq} has a verified time`);
  assert.match(verdict.seals[0]!.tsa ?? '', 'CN=');
});

test('the command-line verifier reports the verified time of each seal against the TSA root', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'verify-anchored-'));
  try {
    writeFileSync(join(dir, 'export.json'), JSON.stringify(await exported()));
    writeFileSync(join(dir, 'keys.json'), JSON.stringify(await keys()));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/verify-trail.ts', join(dir, 'export.json'), join(dir, 'keys.json'), '--tsa-ca', tsa.caPath]);
    assert.match(stdout, /seal at entry 1, key ed25519-[0-9a-f]{16}: existed by \d{4}-\d\d-\d\dT[\d:.]+Z \(timestamp of /);
    assert.match(stdout, /seal at entry 3, key ed25519-[0-9a-f]{16}: existed by /);
    assert.match(stdout, /^VERIFIED in/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a tail entry dropped from the export file is caught by the export head', async () => {
  const doc = await exported();
  const last = doc.entries.length;
  doc.entries.pop();
  doc.entryCount--;
  const verdict = await verifyTrail(doc, await keys(), anchors());
  assert.equal(verdict.problems, [`the export head names entry ${last}, the export ends at entry ${last - 1}: entries were dropped from its end`]);
});

test('tail entries deleted in the database with their seal leave older entries that no seal covers', async () => {
  // Two entries of one command: one seal, at the second, covers both.
  await appendCollectionEvents(app, tenant.organizationId, collectionId, ['ItemSubmitted', 'ItemAssessed']);
  const covering = await coveredBySeal(4);
  assert.is(covering.seq, 5);
  assert.is((await trailEntries()).find((e: any) => e.seq === 4).seal, null);
  const knex = app.database.knex;
  const entry = await knex('collection_trail_entries').where({ collection_id: collectionId, seq: 5 }).first();
  const seal = await knex('collection_trail_seals').where({ collection_id: collectionId, seq: 5 }).first();
  await knex('collection_trail_entries').where({ collection_id: collectionId, seq: 5 }).delete();
  await knex('collection_trail_seals').where({ collection_id: collectionId, seq: 5 }).delete();
  // The service signs the export's head over what is left: the file is consistent, the gap is not.
  const doc = await exported();
  await knex('collection_trail_entries').insert({ ...entry, payload: JSON.stringify(entry.payload) });
  await knex('collection_trail_seals').insert(seal);
  const verdict = await verifyTrail(doc, await keys(), anchors());
  assert.equal(verdict.problems, [
    `entries 4 to 4 are older than the sealing delay (${DELAY_S} s) at the export and no seal covers them: the seal that covered them was removed, with the entries after them`,
  ]);
  assert.ok((await verifyTrail(await exported(), await keys(), anchors())).ok, 'restored');
});

/** An Ed25519 key named the way the service names its own (a key that is not in the published set). */
function foreignKey() {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const keyId = `ed25519-${createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16)}`;
  return { keyId, privateKey, publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

test('a chain altered and re-signed whole with a key not in the published set is caught', async () => {
  const doc = await exported();
  const forger = foreignKey();
  doc.entries[0].entry.payload = { forged: true };
  let previous = TRAIL_GENESIS;
  const resign = (seal: any) => ({ ...seal, keyId: forger.keyId, timestamp: null, signature: sign(null, sealMessage({ ...seal, keyId: forger.keyId }), forger.privateKey).toString('base64url') });
  for (const e of doc.entries) {
    e.entryHash = entryHashOf(e.entry);
    e.chainHash = previous = chainHashOf(previous, e.entryHash);
    if (e.seal) e.seal = resign({ ...e.seal, chainHash: e.chainHash });
  }
  doc.head = resign({ ...doc.head, chainHash: previous });
  const published = await keys();
  const verdict = await verifyTrail(doc, published, anchors());
  assert.equal(verdict.problems, [
    ...doc.entries.filter((e: any) => e.seal).map((e: any) => `entry ${e.seq}: sealed with unknown key ${forger.keyId}`),
    `the export head: sealed with unknown key ${forger.keyId}`,
  ]);
  // Publishing the forger's key under the service's key id does not help: the id names the key.
  const swapped = { keys: [{ ...published.keys[0], publicKey: forger.publicKey }] };
  const withSwapped = await verifyTrail({ ...doc, entries: doc.entries.map((e: any) => (e.seal ? { ...e, seal: { ...e.seal, keyId: published.keys[0].keyId } } : e)) }, swapped, anchors());
  assert.ok(withSwapped.problems[0]!.startsWith(`key ${published.keys[0].keyId}: its id does not name its public key`), withSwapped.problems[0]);
});

test("a timestamp over another seal's digest is caught", async () => {
  const doc = await exported();
  doc.entries[1].seal.timestamp = doc.entries[0].seal.timestamp;
  const verdict = await verifyTrail(doc, await keys(), anchors());
  assert.equal(verdict.problems, ["entry 2: the seal's timestamp does not hold: the timestamp token covers other data than the one asked for (message imprint differs)"]);
  assert.equal(verdict.seals.find((s) => s.seq === 2)!.timestampedAt, null);
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `npm run trail-keys` as an operator runs it: its own process on the service's database and secrets. */
function trailKeys(args: string[] = []): Promise<Run> {
  const env = { ...process.env, DATABASE_URL: app.database.url, DATA_DIR: app.app.config.DATA_DIR, LOG_LEVEL: 'warn' };
  return promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/trail-keys.ts', ...args], { env }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

test('npm run trail-keys rotates the key: new seals under the new key id, old and new seals both verify with their timestamps', async () => {
  const before = (await keys()).keys;
  assert.is(before.length, 1);
  const rotated = await trailKeys();
  assert.is(rotated.code, 0, rotated.stderr);
  const out = JSON.parse(rotated.stdout);
  assert.match(out.rotatedTo, /^ed25519-[0-9a-f]{16}$/);
  assert.is.not(out.rotatedTo, before[0].keyId);
  const published = (await keys()).keys;
  assert.equal(
    published.map((k: any) => k.keyId),
    [before[0].keyId, out.rotatedTo],
  );
  assert.ok(published[0].retiredAt);
  assert.is(published[1].retiredAt, null);
  assert.equal(
    JSON.parse((await trailKeys(['--list'])).stdout).keys.map((k: any) => k.keyId),
    [before[0].keyId, out.rotatedTo],
  );
  assert.is((await trailKeys(['--rotate-twice'])).code, 2);

  await appendCollectionEvents(app, tenant.organizationId, collectionId, ['CollectionCompleted']);
  await waitForSeals(app, collectionId);
  const doc = await exported();
  const verdict = await verifyTrail(doc, await keys(), anchors());
  assert.ok(verdict.ok, verdict.problems.join('; '));
  const last = verdict.seals[verdict.seals.length - 1]!;
  assert.is(last.seq, doc.entries.length);
  assert.is(last.keyId, out.rotatedTo);
  assert.is(doc.head.keyId, out.rotatedTo);
  assert.ok(verdict.seals.filter((s) => s.keyId === before[0].keyId).length >= 3, 'the old seals still verify under the retired key');
  for (const seal of verdict.seals) assert.ok(seal.timestampedAt, `seal ${seal.seq} timestamped`);

  // A retired key that leaked cannot pass off a new seal as an old one: the TSA dates it after the retirement.
  const backdated = { keys: published.map((k: any, i: number) => (i === 0 ? { ...k, retiredAt: '2020-01-01T00:00:00.000Z' } : k)) };
  const late = await verifyTrail(doc, backdated, anchors());
  assert.ok(late.problems.length >= 3, late.problems.join('; '));
  assert.match(late.problems[0]!, new RegExp(`^entry 1: timestamped at .*, after its key ${before[0].keyId} was retired \\(2020-01-01T00:00:00.000Z\\)$`));
});

test.run();

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rotateTrailKey } from '../../application/collection/trail/keys.ts';
import { rebuildProjection } from '../../platform/projections/rebuild.ts';
import { TRAIL_GENESIS, chainHashOf, entryHashOf, trailEnvelope } from '../../projections/collection/trail-chain.ts';
import { collectionTrailProjection } from '../../projections/collection/trail-projection.ts';
import { recentTrail } from '../../projections/collection/trail-queries.ts';
import { verifyTrail } from '../../scripts/verify-trail.ts';
import type { TestApp } from '../support/app.ts';
import { provisionTenant, serviceWithTenant, type TestTenant } from '../support/identity.ts';
import { appendCollectionEvents, exportOf, newId, waitForSeals } from './support.ts';

const test = suite('collection trail: chain, seals, listing, export and offline verification');
let app: TestApp;
let tenant: TestTenant;
let other: TestTenant;
const collectionId = newId();
const call = serviceWithTenant(
  test,
  async (a, t) => {
    app = a;
    tenant = t;
    other = await provisionTenant(a, { name: 'Other organization' });
    await appendCollectionEvents(app, tenant.organizationId, collectionId, ['CollectionCreated', 'CollectionSent', 'RecipientNotified', 'RecipientOpened', 'ItemSubmitted', 'ItemAssessed'], (i) => ({
      step: i,
      reason: i === 5 ? 'válido, "assinado"' : null,
    }));
    await waitForSeals(app, collectionId);
    // A short sealing delay: the entries after the status changes are sealed within the test.
  },
  { TRAIL_SEAL_MAX_DELAY_S: '1' },
);

const keys = async () => (await call('GET', '/.well-known/collection-trail-keys')).body;
const exported = async () => JSON.parse((await exportOf(app, tenant.token, collectionId)).text);

test('entries are numbered from 1 in stream order, hashed over the envelope only and chained from genesis', async () => {
  const { status, body } = await call('GET', `/v1/collections/${collectionId}/trail?skip=0&take=100`);
  assert.is(status, 200);
  assert.is(body.total, 6);
  assert.equal(
    body.entries.map((e: any) => e.seq),
    [1, 2, 3, 4, 5, 6],
  );
  assert.equal(
    body.entries.map((e: any) => e.action),
    ['COLLECTION_CREATED', 'COLLECTION_SENT', 'RECIPIENT_NOTIFIED', 'RECIPIENT_OPENED', 'ITEM_SUBMITTED', 'ITEM_ASSESSED'],
  );
  let previous = TRAIL_GENESIS;
  for (const e of body.entries) {
    const envelope = {
      organizationId: tenant.organizationId,
      collectionId,
      itemId: e.itemId,
      recipientId: e.recipientId,
      action: e.action,
      actorType: e.actorType,
      actorId: e.actorId,
      occurredAt: e.occurredAt,
      payload: e.payload,
    };
    assert.is(e.entryHash, entryHashOf(trailEnvelope(envelope)), `entry ${e.seq}: no field beyond the envelope (definition) is hashed`);
    assert.is(e.chainHash, chainHashOf(previous, e.entryHash));
    previous = e.chainHash;
  }
  // Status changes are sealed, and the last entry of the append (its seal covers 3 to 5).
  assert.equal(
    body.entries.map((e: any) => e.seal !== null),
    [true, true, false, false, false, true],
  );
  assert.is(body.entries[1].seal.chainHash, body.entries[1].chainHash);
  const page = await call('GET', `/v1/collections/${collectionId}/trail?skip=4&take=10`);
  assert.equal(
    page.body.entries.map((e: any) => e.seq),
    [5, 6],
  );
});

test('recentTrail gives the newest first, bounded', async () => {
  const recent = await recentTrail(app.app.db, tenant.organizationId, collectionId, 2);
  assert.equal(
    recent.map((e) => e.seq),
    [6, 5],
  );
  assert.equal(await recentTrail(app.app.db, other.organizationId, collectionId), []);
});

test('another organization, an unknown collection and a malformed id', async () => {
  assert.equal((await call('GET', `/v1/collections/${collectionId}/trail`, undefined, other.token)).body, { code: 404, message: 'Solicitação não encontrada.' });
  assert.is((await exportOf(app, other.token, collectionId)).status, 404);
  assert.is((await call('GET', `/v1/collections/${newId()}/trail`)).status, 404);
  assert.is((await call('GET', '/v1/collections/nope/trail')).status, 400);
  assert.is((await call('GET', `/v1/collections/${collectionId}/trail?take=0`)).status, 400);
  assert.is((await call('GET', `/v1/collections/${collectionId}/trail/export?format=xml`)).status, 400);
});

test('the JSON export verifies offline; the CSV carries every entry with its seal columns', async () => {
  const verdict = await verifyTrail(await exported(), await keys());
  assert.ok(verdict.ok, verdict.problems.join('; '));
  assert.not.match(verdict.notes.join(' '), 'after the last valid seal');
  assert.equal(
    verdict.seals.map((s) => s.seq),
    [1, 2, 6],
  );
  const csv = await exportOf(app, tenant.token, collectionId, 'csv');
  assert.is(csv.type, 'text/csv; charset=utf-8');
  const lines = csv.text.trimEnd().split('\r\n');
  assert.is(lines.length, 7);
  assert.ok(lines[0]!.startsWith('seq,organizationId,collectionId'));
  assert.ok(lines[6]!.includes('"{""reason"":""válido, \\""assinado\\"""",""step"":5}"'), lines[6]);
});

test('a stored entry changed in the database fails verification as altered, the chain still holding', async () => {
  const row = await app.database.knex('collection_trail_entries').where({ collection_id: collectionId, seq: 4 }).first();
  await app.database
    .knex('collection_trail_entries')
    .where({ collection_id: collectionId, seq: 4 })
    .update({ payload: JSON.stringify({ step: 99 }) });
  const verdict = await verifyTrail(await exported(), await keys());
  await app.database
    .knex('collection_trail_entries')
    .where({ collection_id: collectionId, seq: 4 })
    .update({ payload: JSON.stringify(row.payload) });
  assert.not.ok(verdict.ok);
  assert.equal(verdict.problems, ['entry 4: content does not match its entry hash (altered, or personal data erased)']);
});

test('a deleted entry breaks the numbering and the chain', async () => {
  const doc = await exported();
  doc.entries.splice(2, 1);
  doc.entryCount--;
  const verdict = await verifyTrail(doc, await keys());
  assert.ok(verdict.problems.some((p) => p.includes('deleted or inserted')));
  assert.ok(verdict.problems.some((p) => p.startsWith('entry 4: chain broken')));
});

test('a chain recomputed whole after a change is caught by the seals; a forged seal by its signature', async () => {
  const knex = app.database.knex;
  const before = await knex('collection_trail_entries').where({ collection_id: collectionId }).orderBy('seq');
  await knex.transaction(async (trx) => {
    let previous = TRAIL_GENESIS;
    for (const r of before) {
      const payload = r.seq === 1 ? { step: 0, reason: 'forjado' } : r.payload;
      const entryHash = entryHashOf({
        organizationId: r.organization_id,
        collectionId,
        itemId: r.item_id,
        recipientId: r.recipient_id,
        action: r.action,
        actorType: r.actor_type,
        actorId: r.actor_id,
        occurredAt: r.occurred_at,
        payload,
      });
      previous = chainHashOf(previous, entryHash);
      await trx('collection_trail_entries')
        .where({ collection_id: collectionId, seq: r.seq })
        .update({ payload: JSON.stringify(payload), entry_hash: entryHash, chain_hash: previous });
    }
  });
  const doc = await exported();
  for (const r of before)
    await knex('collection_trail_entries')
      .where({ collection_id: collectionId, seq: r.seq })
      .update({ payload: JSON.stringify(r.payload), entry_hash: r.entry_hash, chain_hash: r.chain_hash });
  const recomputed = await verifyTrail(doc, await keys());
  assert.equal(recomputed.problems, [
    ...[1, 2, 6].map((seq) => `entry ${seq}: the seal signed another chain head (the chain was recomputed)`),
    'entries 1 to 6 are older than the sealing delay (1 s) at the export and no seal covers them: the seal that covered them was removed, with the entries after them',
  ]);
  doc.entries[0].seal.chainHash = doc.entries[0].chainHash;
  assert.ok((await verifyTrail(doc, await keys())).problems.includes('entry 1: bad seal signature'));
  assert.ok((await verifyTrail(await exported(), await keys())).ok, 'restored');
});

/** The verifier as an auditor runs it: its own process, files on disk, the exit code as the verdict. */
async function verifyAsAuditor(doc: unknown): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'verify-trail-'));
  try {
    writeFileSync(join(dir, 'export.json'), JSON.stringify(doc));
    writeFileSync(join(dir, 'keys.json'), JSON.stringify(await keys()));
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/verify-trail.ts', join(dir, 'export.json'), join(dir, 'keys.json')]);
    return await run.then(
      ({ stdout }) => ({ code: 0, output: stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, output: error.stdout }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the command-line verifier exits 0 on an intact export and 1, naming the entry, on a tampered one', async () => {
  const doc = await exported();
  const intact = await verifyAsAuditor(doc);
  assert.is(intact.code, 0, intact.output);
  assert.match(intact.output, /VERIFIED in \d+ ms/);
  doc.entries[2].entry.actorType = 'SYSTEM';
  const tampered = await verifyAsAuditor(doc);
  assert.is(tampered.code, 1, tampered.output);
  assert.match(tampered.output, 'FAIL entry 3: content does not match its entry hash');
  assert.match(tampered.output, 'NOT VERIFIED');
});

test('a rebuild gives the same entries, hashes and seals', async () => {
  const rows = () => app.database.knex('collection_trail_entries').where({ collection_id: collectionId }).orderBy('seq').select('seq', 'event_id', 'entry_hash', 'chain_hash', 'payload');
  const seals = () => app.database.knex('collection_trail_seals').where({ collection_id: collectionId }).orderBy('seq');
  const [rowsBefore, sealsBefore] = [await rows(), await seals()];
  await rebuildProjection(app.app.db, app.app.store, collectionTrailProjection);
  assert.equal(await rows(), rowsBefore);
  assert.equal(await seals(), sealsBefore);
  assert.equal(await app.database.knex('collection_trail_unsealed').where({ collection_id: collectionId }), [], 'no head signed twice');
});

test('a rotated key signs later seals; the retired key stays published and still verifies', async () => {
  const first = (await keys()).keys;
  assert.is(first.length, 1);
  const rotated = await rotateTrailKey(app.app);
  await appendCollectionEvents(app, tenant.organizationId, collectionId, ['CollectionCompleted']);
  await waitForSeals(app, collectionId);
  const published = (await keys()).keys;
  assert.equal(
    published.map((k: any) => k.keyId),
    [first[0].keyId, rotated],
  );
  assert.ok(published[0].retiredAt);
  assert.is(published[1].retiredAt, null);
  const doc = await exported();
  assert.is(doc.entries[6].seal.keyId, rotated);
  assert.is(doc.entries[0].seal.keyId, first[0].keyId);
  const verdict = await verifyTrail(doc, { keys: published });
  assert.ok(verdict.ok, verdict.problems.join('; '));
  assert.equal(
    (await verifyTrail(doc, { keys: [published[1]] })).problems,
    [1, 2, 6].map((seq) => `entry ${seq}: sealed with unknown key ${first[0].keyId}`),
  );
});

test.run();

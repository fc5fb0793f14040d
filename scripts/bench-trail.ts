/**
 * `npx tsx scripts/bench-trail.ts`: a 100,000-entry trail through the real service, exported and
 * verified offline. Starts the whole service on a throw-away database with a tenant, appends
 * BENCH_TRAIL_ENTRIES events (default 100,000) to one collection stream in batches, waits for
 * the trail projection and the seals, streams GET .../trail/export?format=json to a file while
 * sampling the process's heap, then runs scripts/verify-trail.ts on it as an auditor would (a
 * child process) and reports its own timing. Target: verification under 2 s.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { collectionStream } from '../domain/collection/events.ts';
import { startTestApp } from '../test/support/app.ts';
import { provisionTenant } from '../test/support/identity.ts';

const ENTRIES = Number(process.env.BENCH_TRAIL_ENTRIES ?? 100_000);
const BATCH = 1000;
const collectionId = 'f'.repeat(24);

const app = await startTestApp({ LOG_LEVEL: 'fatal' });
const dir = mkdtempSync(join(tmpdir(), 'bench-trail-'));
try {
  const tenant = await provisionTenant(app);
  const started = performance.now();
  for (let offset = 0; offset < ENTRIES; offset += BATCH) {
    const events = Array.from({ length: Math.min(BATCH, ENTRIES - offset) }, (_, i) => {
      const n = offset + i;
      const type = n === 0 ? 'CollectionCreated' : n === 1 ? 'CollectionSent' : n === ENTRIES - 1 ? 'CollectionCompleted' : 'ItemSubmitted';
      const action = { CollectionCreated: 'COLLECTION_CREATED', CollectionSent: 'COLLECTION_SENT', CollectionCompleted: 'COLLECTION_COMPLETED', ItemSubmitted: 'ITEM_SUBMITTED' }[type];
      const data = {
        organizationId: tenant.organizationId,
        collectionId,
        itemId: n > 1 ? 'a'.repeat(24) : null,
        recipientId: 'b'.repeat(24),
        action,
        actorType: 'RECIPIENT',
        actorId: 'b'.repeat(24),
        occurredAt: new Date(Date.UTC(2026, 10, 23) + n * 1000).toISOString(),
        payload: { n, fileName: `documento-${n}.pdf` },
      };
      return { type, data };
    });
    await app.app.store.appendToStream(collectionStream(collectionId), events);
  }
  // Read-your-writes gives up after its timeout; a trail this long takes longer to project.
  const count = async (table: string) => Number((await app.database.knex(table).count('* as c'))[0]!.c);
  while ((await count('collection_trail_entries')) < ENTRIES || (await count('collection_trail_unsealed')) > 0) await new Promise((r) => setTimeout(r, 100));
  console.log(`${ENTRIES} entries appended, projected and sealed in ${Math.round(performance.now() - started)} ms`);

  const exportFile = join(dir, 'export.json');
  const keysFile = join(dir, 'keys.json');
  let peakHeap = 0;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
  const exportStarted = performance.now();
  const response = await fetch(`${app.url}/v1/collections/${collectionId}/trail/export?format=json`, { headers: { authorization: `Bearer ${tenant.token}` } });
  await pipeline(Readable.fromWeb(response.body as never), createWriteStream(exportFile));
  clearInterval(sampler);
  console.log(`export: ${(statSync(exportFile).size / 1e6).toFixed(1)} MB in ${Math.round(performance.now() - exportStarted)} ms, peak heap of the service process ${(peakHeap / 1e6).toFixed(0)} MB`);
  writeFileSync(keysFile, await (await fetch(`${app.url}/.well-known/collection-trail-keys`)).text());

  const verifyStarted = performance.now();
  const output = execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'verify-trail.ts'), exportFile, keysFile], { encoding: 'utf8' });
  console.log(output.trimEnd());
  console.log(`verifier process, start to exit: ${Math.round(performance.now() - verifyStarted)} ms (target: verification < 2000 ms)`);
} finally {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * `npx tsx scripts/rekey-registries.ts [--batch=500]`, with the service stopped: gives every
 * registry created when ids were an unkeyed hash of the CPF/CNPJ its keyed id, in the events, the
 * streams and the kept webhook bodies, records a keyed alias of each old id, then rebuilds every
 * projection from the rewritten log (docs/registry.md, "Registry ids"). A second run finds nothing
 * to do and changes nothing. Prints a JSON summary.
 */
import { keyringFor, loadConfig } from '../config/index.ts';
import { rekeyRegistries } from '../application/registry/rekey.ts';
import { rebuildProjection } from '../platform/projections/rebuild.ts';
import { everyProjection } from '../projections/index.ts';
import { createLogger, openInfrastructure } from '../service/infrastructure.ts';

const args = process.argv.slice(2);
const batchArg = args.find((a) => a.startsWith('--batch='));
const batchSize = batchArg ? Number(batchArg.slice('--batch='.length)) : 500;
if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000 || args.some((a) => a !== batchArg)) {
  console.error('usage: npx tsx scripts/rekey-registries.ts [--batch=<1..10000>]');
  process.exit(2);
}

const config = loadConfig();
if (config.EVENTSTORE_URL) {
  console.error('rekey-registries rewrites the PostgreSQL events table; EventStoreDB events cannot be rewritten in place (EVENTSTORE_URL is set)');
  process.exit(2);
}
const log = createLogger({ ...config, LOG_LEVEL: 'warn' });
// Opening records the lookup of every registry not recorded yet (recordRegistryLookups), which
// the plan reads.
const infra = await openInfrastructure(config, log);
try {
  const result = await rekeyRegistries(infra.db, keyringFor(config, 'pepper'), batchSize);
  // Every read table names registry ids: rebuilt from the rewritten log, only when it changed.
  const rebuilt: string[] = [];
  if (result.registries) {
    for (const projection of everyProjection) {
      await rebuildProjection(infra.db, infra.store, projection, { log, maxAttempts: config.PROJECTION_MAX_ATTEMPTS });
      rebuilt.push(projection.name);
    }
  }
  console.log(JSON.stringify({ ...result, rebuilt }));
} finally {
  await infra.close();
}

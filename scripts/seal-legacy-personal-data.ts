/**
 * `npm run personal-data:seal-legacy [-- --from-start] [-- --batch=500]`: seals in place the
 * personal fields of events appended before sealing existed (docs/personal-data.md), so that an
 * erasure shreds them too. Safe beside a running service; idempotent (sealed fields are left
 * alone) and resumable (it goes on from where the last run stopped; --from-start scans the whole
 * log again, after a rule gained a field). Prints one line per batch that rewrote something and
 * a JSON summary.
 */
import { loadConfig } from '../config/index.ts';
import { sealLegacyEvents } from '../platform/personal-data/legacy.ts';
import { createLogger, openInfrastructure, personalDataOptions } from '../service/infrastructure.ts';

const args = process.argv.slice(2);
const batchArg = args.find((a) => a.startsWith('--batch='));
const batchSize = batchArg ? Number(batchArg.slice('--batch='.length)) : 500;
if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000 || args.some((a) => a !== '--from-start' && a !== batchArg)) {
  console.error('usage: npm run personal-data:seal-legacy -- [--from-start] [--batch=<1..10000>]');
  process.exit(2);
}

const config = loadConfig();
if (config.EVENTSTORE_URL) {
  console.error('personal-data:seal-legacy rewrites the PostgreSQL events table; EventStoreDB events cannot be rewritten in place (EVENTSTORE_URL is set)');
  process.exit(2);
}
const infra = await openInfrastructure(config, createLogger({ ...config, LOG_LEVEL: 'warn' }));
try {
  const total = await sealLegacyEvents(infra.db, personalDataOptions(config, infra.db), {
    batchSize,
    fromStart: args.includes('--from-start'),
    now: () => new Date(),
    onBatch: ({ scanned, sealed, next }) => sealed && console.log(`sealed ${sealed} of ${scanned} events, up to ${next?.commit}/${next?.prepare}`),
  });
  console.log(JSON.stringify(total));
} finally {
  await infra.close();
}

/**
 * `npm run trail-keys`: rotates the key that seals collection trails (docs/collection-trail.md,
 * Keys): the active key is retired, a new one (a new key id) signs from the sealers' next pass,
 * and every retired key stays published at /.well-known/collection-trail-keys to verify the seals
 * it made. `npm run trail-keys -- --list` only prints the keys. Safe beside a running service.
 * Prints `{rotatedTo, keys}` (or `{keys}`) as one JSON object.
 */
import { publishedTrailKeys, rotateTrailKey } from '../application/collection/trail/keys.ts';
import { loadConfig } from '../config/index.ts';
import { systemClock } from '../platform/ids.ts';
import { createLogger, openInfrastructure } from '../service/infrastructure.ts';

const args = process.argv.slice(2);
if (args.length > 1 || (args.length === 1 && args[0] !== '--list')) {
  console.error('usage: npm run trail-keys [-- --list]');
  process.exit(2);
}

const config = loadConfig();
const infra = await openInfrastructure(config, createLogger({ ...config, LOG_LEVEL: 'warn' }));
try {
  const rotatedTo = args.length ? undefined : await rotateTrailKey({ config, db: infra.db, clock: systemClock });
  console.log(JSON.stringify({ ...(rotatedTo ? { rotatedTo } : {}), keys: await publishedTrailKeys(infra.db) }));
} finally {
  await infra.close();
}

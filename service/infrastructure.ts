import { migrations } from '../application/migrations.ts';
import bunyan from 'bunyan';
import type Logger from 'bunyan';
import { loadOrCreateSecret, prepareDataDir, type Config } from '../config/index.ts';
import { createReadYourWrites } from '../platform/projections/read-your-writes.ts';
import type { ProjectionRunner } from '../platform/projections/runner.ts';
import type { AppContext } from '../application/context.ts';
import { startEmbeddedPostgres } from '../platform/database/embedded.ts';
import { createKnex } from '../platform/database/knex.ts';
import { migrateToLatest } from '../platform/database/migrate.ts';
import { openEventStore } from '../platform/eventstore/open.ts';
import { createIdentityServices } from '../application/identity/index.ts';
import { createIdGenerator, systemClock } from '../platform/ids.ts';

// Kept apart from bootstrap.ts (roles, HTTP, workers) so the command-line tools load only what
// they use and start in a fraction of the time.

export function createLogger(config: Pick<Config, 'LOG_LEVEL'>): Logger {
  return bunyan.createLogger({ name: 'credit-analysis', level: config.LOG_LEVEL, serializers: bunyan.stdSerializers });
}

/** Connect (or start the embedded database), migrate, open the event store. Used by the service and the CLIs. */
export async function openInfrastructure(config: Config, log: Logger) {
  prepareDataDir(config.DATA_DIR);
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: config.DATA_DIR,
        port: config.EMBEDDED_PG_PORT,
        systemDir: config.EMBEDDED_PG_SYSTEM_DIR,
        log: (line, level) => log[level]({ component: 'embedded-postgres' }, line),
      });
  const url = config.DATABASE_URL ?? embedded!.url;
  const db = createKnex(url, config.DB_POOL_MAX);
  await migrateToLatest(db, migrations);
  const store = await openEventStore(config, db);
  const close = async () => {
    await store.close();
    await db.destroy();
    await embedded?.stop();
  };
  return { db, store, close };
}

/** Build the application context over open infrastructure (no roles started). */
export function buildContext(config: Config, log: Logger, infra: { db: AppContext['db']; store: AppContext['store'] }, runner?: ProjectionRunner): AppContext {
  const jwtSecret = config.JWT_SECRET ?? loadOrCreateSecret(config.DATA_DIR, 'jwt');
  const base = {
    config: { ...config, JWT_SECRET: jwtSecret },
    db: infra.db,
    store: infra.store,
    log,
    clock: systemClock,
    ids: createIdGenerator(),
    readYourWrites: createReadYourWrites(infra.db, log, config.READ_YOUR_WRITES_TIMEOUT_MS, runner),
  };
  return { ...base, ...createIdentityServices(base) };
}

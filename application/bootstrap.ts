import bunyan from 'bunyan';
import type Logger from 'bunyan';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadOrCreateSecret, type Config } from '../config/index.ts';
import { createHttpApp } from '../http/app.ts';
import { routeTables } from '../http/modules.ts';
import { allProjections } from '../projections/index.ts';
import { createReadYourWrites } from '../projections/read-your-writes.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import type { AppContext } from './context.ts';
import { startEmbeddedPostgres } from './database/embedded.ts';
import { createKnex } from './database/knex.ts';
import { migrateToLatest } from './database/migrate.ts';
import { openEventStore } from './eventstore/open.ts';
import { createIdentityServices } from './identity/index.ts';
import { createIdGenerator, systemClock } from './ids.ts';
import { ROLES, workerFactories, type Role, type Worker } from './workers.ts';

export interface RunningService {
  app: AppContext;
  /** Base URL of the HTTP server when the api role runs. */
  url?: string;
  runner?: ProjectionRunner;
  stop(): Promise<void>;
}

export function parseRoles(text: string): Set<Role> {
  const roles = new Set<Role>();
  for (const part of text.split(',').map((r) => r.trim()).filter(Boolean)) {
    if (!(ROLES as readonly string[]).includes(part)) throw new Error(`Unknown role "${part}"; roles are ${ROLES.join(', ')}`);
    roles.add(part as Role);
  }
  return roles;
}

export function createLogger(config: Config): Logger {
  return bunyan.createLogger({ name: 'credit-analysis', level: config.LOG_LEVEL, serializers: bunyan.stdSerializers });
}

/** Connect (or start the embedded database), migrate, open the event store. Used by the service and the CLIs. */
export async function openInfrastructure(config: Config, log: Logger) {
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({ dataDir: config.DATA_DIR, port: config.EMBEDDED_PG_PORT, log: (line) => log.debug({ postgres: line }) });
  const url = config.DATABASE_URL ?? embedded!.url;
  const db = createKnex(url, config.DB_POOL_MAX);
  await migrateToLatest(db);
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

/**
 * Start the roles named in ROLES in this process. `npm start` runs them all on the embedded
 * defaults; several processes with different ROLES can share one database and event store.
 */
export async function startService(config: Config, log: Logger = createLogger(config)): Promise<RunningService> {
  const roles = parseRoles(config.ROLES);
  const infra = await openInfrastructure(config, log);
  const runner = roles.has('projector')
    ? new ProjectionRunner(infra.db, infra.store, allProjections, { batchSize: config.PROJECTION_BATCH_SIZE, log })
    : undefined;
  const app = buildContext(config, log, infra, runner);

  await runner?.start();
  const workers: Worker[] = workerFactories.map((make) => make()).filter((w) => roles.has(w.role));
  for (const worker of workers) await worker.start(app);

  let server: Server | undefined;
  let url: string | undefined;
  if (roles.has('api')) {
    const koa = createHttpApp(app, routeTables, allProjections.map((p) => p.name));
    server = createServer(koa.callback());
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve) => server!.listen(config.PORT, config.HOST, resolve));
    const { port } = server.address() as AddressInfo;
    url = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;
    log.info({ url, roles: [...roles] }, 'listening');
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop taking requests, let those in flight finish, then the workers, then the database.
      if (server) {
        const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => server!.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(grace);
      }
      for (const worker of workers.reverse()) await worker.stop();
      await runner?.stop();
      await infra.close();
      log.info('stopped');
    })());
  return { app, url, runner, stop };
}

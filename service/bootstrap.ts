import { closeLiveFeed } from '../application/report/live-feed.ts';
import type Logger from 'bunyan';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerClientError, createHttpApp } from '../http/app.ts';
import { routeTables } from '../http/modules.ts';
import { mcpConnector } from '../http/mcp/connector.ts';
import { allProjections } from '../projections/index.ts';
import { ProjectionRunner } from '../platform/projections/runner.ts';
import type { AppContext } from '../application/context.ts';
import { buildContext, createLogger, openInfrastructure } from './infrastructure.ts';
import { productionRefusals, sandboxParts } from '../config/deployment.ts';
import { ConfigurationError, publicBaseUrl, type Config } from '../config/index.ts';
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
  for (const part of text
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean)) {
    if (!(ROLES as readonly string[]).includes(part)) throw new Error(`Unknown role "${part}"; roles are ${ROLES.join(', ')}`);
    roles.add(part as Role);
  }
  return roles;
}

/**
 * Start the roles named in ROLES in this process. `npm start` runs them all on the embedded
 * defaults; several processes with different ROLES can share one database and event store.
 */
export async function startService(config: Config, log: Logger = createLogger(config)): Promise<RunningService> {
  const refusals = productionRefusals(config);
  if (refusals.length > 0) throw new ConfigurationError(refusals.join('\n'));
  const sandbox = sandboxParts(config);
  if (sandbox.length > 0) log.warn({ deployment: config.DEPLOYMENT, sandbox }, `DEPLOYMENT=sandbox: results of these parts are fictitious or stay on this machine: ${sandbox.join('; ')}`);
  const roles = parseRoles(config.ROLES);
  const infra = await openInfrastructure(config, log);
  const runner = roles.has('projector')
    ? new ProjectionRunner(infra.db, infra.store, allProjections, { batchSize: config.PROJECTION_BATCH_SIZE, log, leaseMs: config.PROJECTION_LEASE_MS, maxAttempts: config.PROJECTION_MAX_ATTEMPTS })
    : undefined;
  const app = buildContext(config, log, infra, runner);

  await runner?.start();
  const workers: Worker[] = workerFactories.map((make) => make()).filter((w) => roles.has(w.role));
  for (const worker of workers) await worker.start(app);

  let server: Server | undefined;
  let url: string | undefined;
  if (roles.has('api')) {
    const koa = createHttpApp(
      app,
      routeTables,
      allProjections.map((p) => p.name),
      [mcpConnector(app, routeTables)],
    );
    server = createServer(koa.callback());
    server.on('clientError', answerClientError);
    // Longer than the idle timeout of the proxies and clients in front (60 s on the usual load
    // balancers): the side that closes an idle keep-alive connection must be the client, or a
    // request sent on it just as the server closes it fails (a 502 at a proxy, "fetch failed" at
    // a client; seen under load with a 5 s timeout).
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    await new Promise<void>((resolve, reject) => {
      const refuse = (error: NodeJS.ErrnoException) =>
        reject(
          ['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL'].includes(error.code ?? '')
            ? new ConfigurationError(`cannot listen on HOST ${config.HOST} PORT ${config.PORT} (${error.code}); fix: stop what holds it, or set PORT or HOST`)
            : error,
        );
      server!.once('error', refuse);
      server!.listen(config.PORT, config.HOST, () => {
        server!.off('error', refuse);
        resolve();
      });
    });
    const { port } = server.address() as AddressInfo;
    // With PORT=0 the port is known only now; links are made only inside requests, none served yet.
    if (app.config.PUBLIC_BASE_URL === publicBaseUrl(config.HOST, 0)) app.config.PUBLIC_BASE_URL = publicBaseUrl(config.HOST, port);
    url = `http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${port}`;
    log.info({ url, roles: [...roles] }, 'listening');
  }

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      // Stop taking requests, let those in flight finish, then the workers, then the database.
      if (server) {
        await closeLiveFeed(app.store);
        const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => server!.closeAllConnections(), config.SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(grace);
      }
      for (const worker of workers.reverse()) await worker.stop();
      await runner?.stop();
      await app.authenticator.close();
      await app.limiter.close();
      await infra.close();
      log.info('stopped');
    })());
  return { app, url, runner, stop };
}

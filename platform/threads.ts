import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running one of our modules. On Node 20 the module hooks that let the main
 * thread load TypeScript (tsx's) are not inherited by worker threads, so a .ts module is reached
 * through a bootstrap that registers them in the thread first.
 */
export function startThread(module: URL, options: WorkerOptions = {}): Worker {
  if (!module.pathname.endsWith('.ts')) return new Worker(module, options);
  const bootstrap = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
register();
await import(${JSON.stringify(module.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(bootstrap)}`), options);
}

import type { TestApp } from './app.ts';
import { sleep } from './wait.ts';

/** The most /health may take while a request runs (issue 33): a blocked event loop shows here first. */
export const HEALTH_BUDGET_MS = 100;

/** Asks /health until `until` resolves; the slowest answer, in ms (the one in flight at the end counts). */
async function slowestHealthDuring(app: TestApp, until: Promise<unknown>): Promise<number> {
  let running = true;
  void until.finally(() => (running = false)).catch(() => {});
  let slowest = 0;
  while (running) {
    const started = performance.now();
    await (await fetch(`${app.url}/health`)).arrayBuffer();
    slowest = Math.max(slowest, performance.now() - started);
    await sleep(5);
  }
  return slowest;
}

/**
 * Runs `action` while a client asks /health again and again. The service runs in this process: a
 * request that holds the event loop delays /health by as long as it holds it. The budget is
 * HEALTH_BUDGET_MS, or twice the slowest answer of an idle moment just before when the machine
 * is so loaded that an idle service is slower than that (a shared development machine); a held
 * loop (hundreds of ms to hours) exceeds either.
 */
export async function healthWhile<T>(app: TestApp, action: () => Promise<T>): Promise<{ result: T; slowestHealthMs: number; budgetMs: number }> {
  await (await fetch(`${app.url}/health`)).arrayBuffer();
  const idle = await slowestHealthDuring(app, sleep(1_000));
  const budgetMs = Math.max(HEALTH_BUDGET_MS, 2 * idle);
  const running = action();
  const [slowestHealthMs, result] = await Promise.all([slowestHealthDuring(app, running), running]);
  return { result, slowestHealthMs, budgetMs };
}

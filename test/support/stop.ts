/** Whether `worker.stop()` resolved within `ms`: a stop that waits forever must fail its test, not hang the suite. */
export async function stopsWithin(worker: { stop(): Promise<void> }, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([worker.stop().then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

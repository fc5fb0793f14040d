/**
 * A worker's wait between rounds that something else can cut short: new work arrived, a slot
 * freed up, or the worker is stopping. Waking when nobody waits does nothing.
 */
export class WakeablePause {
  private wakeUp: (() => void) | undefined;

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}

/**
 * The tests' one way to wait for something that happens on its own (a projection catching up, a
 * worker delivering, a process starting): poll a check until it gives its answer, with a growing
 * pause, and fail with a message naming what never came. Bounds are generous: a loaded machine
 * only makes a test slower, never red.
 */

export interface WaitOptions {
  /** How long before giving up (default 60 s: only a failing test waits that long). */
  timeoutMs?: number;
  /** What is waited for, for the failure message; a function is asked only then, with the last value read. */
  what?: string | ((last: unknown) => string);
}

const FIRST_PAUSE_MS = 10;
const LONGEST_PAUSE_MS = 200;

/**
 * A fixed pause: only where time is the behaviour under test (a lock's length, pacing, a stress's
 * duration) or to make simulated work slow, with a comment saying so. To wait for something, use
 * `eventually`; to show something did not happen, wait for a positive signal that would come
 * after it (docs/CONVENTIONS.md, tests).
 */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Nothing yet: undefined, null or false. Anything else (0 and '' included) is an answer. */
type Answer<T> = Exclude<T, undefined | null | false>;

/**
 * Polls `check` until it returns an answer (anything but undefined, null or false) and returns it.
 * An error thrown by `check` fails the wait at once.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: WaitOptions = {}): Promise<Answer<T>> {
  const { timeoutMs = 60_000, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let wait = FIRST_PAUSE_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value as Answer<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what(value) : what}`);
    await sleep(wait);
    wait = Math.min(wait * 2, LONGEST_PAUSE_MS);
  }
}

/**
 * Reads `read` until `holds` accepts what it gave, and returns that value; on timeout the message
 * shows the last value read, which is usually what explains the failure.
 */
export async function readUntil<T>(read: () => Promise<T>, holds: (value: T) => boolean, options: WaitOptions = {}): Promise<T> {
  let last: T | undefined;
  const what = options.what ?? 'the value to settle';
  const found = await eventually(
    async () => {
      last = await read();
      return holds(last) ? { value: last } : undefined;
    },
    { ...options, what: () => `${typeof what === 'function' ? what(last) : what}; last read: ${JSON.stringify(last)}` },
  );
  return found.value;
}

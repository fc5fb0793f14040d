/**
 * The method every bench follows (docs/benchmarks.md, "Method"): contenders measured in paired
 * rounds whose order rotates (each contender in each position equally often), the ratio taken as
 * the median of the per-round ratios with a bootstrap 95% interval, and a verdict that counts a
 * target as met only when the interval's lower bound clears it, or refuses one ("disturbed") when
 * a baseline was itself disturbed. Each bench prints the header (commit, date, load) first.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { stopOwnCluster } from '../test/support/db.ts';

/** At least five: fewer rounds give an interval too wide to clear any target. */
export const MIN_ROUNDS = 5;

/** The commit, the date, the cores and the load, so a figure can be placed later. */
export function benchHeader(name: string): string {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // Not a clone (a tarball): the date still places the figure.
  }
  return `${name}: commit ${commit}, ${new Date().toISOString()}, ${availableParallelism()} cores, ${loadNow()}`;
}

export const loadNow = () =>
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;

/**
 * `rounds` rounds; in round r the contenders run starting from the (r mod n)-th, so each takes
 * each position equally often when rounds is a multiple of n. Returns each contender's figures in
 * round order: pairs are the same index.
 */
export async function pairedRounds<Name extends string, T>(contenders: Record<Name, (round: number) => Promise<T>>, rounds: number): Promise<Record<Name, T[]>> {
  const names = Object.keys(contenders) as Name[];
  const results = Object.fromEntries(names.map((name) => [name, []])) as unknown as Record<Name, T[]>;
  for (let round = 0; round < Math.max(rounds, MIN_ROUNDS); round++) {
    for (let i = 0; i < names.length; i++) {
      const name = names[(round + i) % names.length]!;
      results[name].push(await contenders[name](round));
    }
  }
  return results;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** A small seeded generator (mulberry32): the same figures give the same interval on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RatioInterval {
  median: number;
  low: number;
  high: number;
  perRound: number[];
}

/**
 * ours[i] / baseline[i] for each round, their median, and a percentile bootstrap 95% interval of
 * that median (resampling the rounds, 5,000 times). For a figure where lower is better (a
 * latency), pass the baseline first so that the ratio still reads "higher is better".
 */
export function ratioInterval(ours: readonly number[], baseline: readonly number[]): RatioInterval {
  if (ours.length !== baseline.length || ours.length === 0) throw new Error('ratioInterval needs paired rounds');
  const perRound = ours.map((value, i) => value / baseline[i]!);
  const random = seeded(0x5eed);
  const medians: number[] = [];
  for (let b = 0; b < 5000; b++) {
    medians.push(median(Array.from({ length: perRound.length }, () => perRound[Math.floor(random() * perRound.length)]!)));
  }
  medians.sort((a, b) => a - b);
  return { median: median(perRound), low: medians[Math.floor(0.025 * medians.length)]!, high: medians[Math.ceil(0.975 * medians.length) - 1]!, perRound };
}

/**
 * "met" when the interval's lower bound clears the target, "missed" otherwise; "disturbed" (no
 * verdict) when `disturbance` names why the baseline cannot be trusted in this run.
 */
export function verdict(label: string, interval: RatioInterval, target: number, disturbance?: string | null): string {
  const figures = `${interval.median.toFixed(2)}x [95% ${interval.low.toFixed(2)}, ${interval.high.toFixed(2)}] over ${interval.perRound.length} rounds`;
  if (disturbance) return `${label}: ${figures}   [target >= ${target}x: disturbed (${disturbance}), no verdict]`;
  return `${label}: ${figures}   [target >= ${target}x: ${interval.low >= target ? 'met' : 'MISSED'}]`;
}

/**
 * A baseline is disturbed when its own figure in some round strays far from its quiet value
 * (its best round): `factor` 1.5 by default, for a figure where higher is better.
 */
/**
 * The largest and smallest of a list of any length: Math.max(...list) passes each element as an
 * argument and overflows the stack past about 120,000 (bench:webhooks' arrivals reach 160,000).
 */
export const largest = (values: readonly number[]) => values.reduce((a, b) => (b > a ? b : a), -Infinity);
export const smallest = (values: readonly number[]) => values.reduce((a, b) => (b < a ? b : a), Infinity);

export function disturbedBaseline(name: string, figures: readonly number[], factor = 1.5): string | null {
  const best = Math.max(...figures);
  const worst = Math.min(...figures);
  return best / worst > factor ? `${name} varied ${(best / worst).toFixed(2)}x between rounds` : null;
}

/**
 * What a bench started outside its own process (services, baseline servers, clients) or on disk
 * (data folders), stopped and removed by endBench in the reverse order, whatever ends the bench:
 * its end, a failure, or a signal. Each returns the function that forgets it, for a bench that
 * stops the thing itself earlier.
 */
const cleanups = new Set<() => Promise<void> | void>();

export function onBenchEnd(cleanup: () => Promise<void> | void): () => void {
  cleanups.add(cleanup);
  return () => void cleanups.delete(cleanup);
}

let ending: Promise<never> | undefined;

/**
 * Ends a bench: stops what it registered with onBenchEnd, then the PostgreSQL cluster this process
 * started (a bench run alone starts its own, see test/support/db.ts) and removes its folder, then
 * exits, also after a failure. A second call (a signal during the end) waits for the first.
 */
export function endBench(code: number): Promise<never> {
  ending ??= (async () => {
    for (const cleanup of [...cleanups].reverse()) {
      cleanups.delete(cleanup);
      try {
        await cleanup();
      } catch (error) {
        console.error('bench clean-up:', error);
      }
    }
    await stopOwnCluster();
    process.exit(code);
  })();
  return ending;
}

/**
 * A bench killed (Ctrl-C, `kill`, its terminal closed) or crashing outside its body ends as one
 * that finished: its children stopped, its cluster and folders removed. Without this node exits
 * at once on SIGINT/SIGTERM and leaves the `npm start` children and the embedded PostgreSQL
 * running, and their folders in the temporary directory.
 */
export function endBenchOnSignals(): void {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    process.on(signal, () => {
      console.error(`${signal}: stopping the bench's services and removing its data`);
      void endBench(code);
    });
  }
  for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
    process.on(event, (error: unknown) => {
      console.error(error);
      void endBench(1);
    });
  }
}

/** Runs a bench's body and ends it with endBench whatever happens: its end, a failure, a signal. */
export async function runBench(body: () => Promise<number | void>): Promise<never> {
  endBenchOnSignals();
  let code = 0;
  try {
    code = (await body()) ?? 0;
  } catch (error) {
    console.error(error);
    code = 1;
  }
  return endBench(code);
}

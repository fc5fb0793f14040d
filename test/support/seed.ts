import fc from 'fast-check';
import type { Test } from 'uvu';

/**
 * The seed of a test file's random inputs: FUZZ_SEED when set, to replay a failure, else a new
 * one, printed with the command that replays it.
 */
export function randomSeed(testPattern: string): number {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(`random seed ${seed} (replay: FUZZ_SEED=${seed} npx tsx scripts/test.ts ${testPattern})`);
  return seed;
}

/**
 * Every property of the suite (fc.assert without a seed of its own) runs from randomSeed's seed.
 * Set while the suite runs, not when its file loads: uvu loads every file before it runs any
 * suite, so a seed set at load would be the last file's for all of them.
 */
export function seededProperties(test: Test, testPattern: string): void {
  const seed = randomSeed(testPattern);
  test.before(() => fc.configureGlobal({ ...fc.readConfigureGlobal(), seed }));
  test.after(() => fc.resetConfigureGlobal());
}

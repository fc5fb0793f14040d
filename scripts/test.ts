/**
 * `npm test`: type-check, lint, start one real PostgreSQL for the whole run, run every uvu suite
 * against it, and end with the line CI reads: `N passed, N failed, N skipped`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { startTestCluster } from '../test/support/cluster.ts';

function finish(passed: number, failed: number, skipped: number): never {
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 ? 1 : 0);
}

const onlyPattern = process.argv[2];

// The whole run checks types, the layering lint and the formatting first: CI runs exactly this command.
const checks: Array<[string, string[]]> = [
  ['type check', ['tsc', '--noEmit', '-p', '.']],
  ['lint', ['eslint', '.']],
  ['format', ['prettier', '--check', '--log-level', 'warn', '**/*.{ts,js}']],
];
if (!onlyPattern) {
  for (const [name, command] of checks) {
    console.log(`> ${command.join(' ')}`);
    if (spawnSync('npx', command, { stdio: 'inherit' }).status !== 0) {
      console.log(`${name} failed`);
      finish(0, 1, 0);
    }
  }
}

const cluster = await startTestCluster();
let output = '';
const child = spawn(process.execPath, ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test', ...(onlyPattern ? [onlyPattern] : []), '-i', 'support', '--no-color'], {
  env: { ...process.env, TEST_PG_ADMIN_URL: cluster.url, LOG_LEVEL: process.env.LOG_LEVEL ?? 'fatal' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  output += chunk.toString();
});
const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
await cluster.stop();

const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
const count = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? NaN);
const total = count('Total');
const passed = count('Passed');
const skipped = count('Skipped');
if (Number.isNaN(total)) {
  // uvu died before printing its totals (a suite failed to load): that is a failure.
  finish(0, 1, 0);
}
// uvu's Total leaves skipped tests out.
const failed = total - passed;
finish(passed, code !== 0 && failed === 0 ? 1 : failed, skipped);

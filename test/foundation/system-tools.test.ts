import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const test = suite('suites that need a program npm does not install (test/support/system-tools.ts)');

function runChild(program: string, ci: string | undefined) {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  if (ci === undefined) delete env.CI;
  else env.CI = ci;
  const child = spawnSync(process.execPath, ['--import', 'tsx', 'test/support/system-tools-child.ts', program], { env, encoding: 'utf8' });
  return { status: child.status, output: (child.stdout + child.stderr).replace(/\x1b\[[0-9;]*m/g, '') };
}

test('missing outside CI: a note saying what to install, every test skipped, no hook run, exit 0', () => {
  const { status, output } = runChild('no-such-program-here', undefined);
  assert.is(status, 0, output);
  assert.match(output, 'needs a program: skipped, not installed: no-such-program-here (apt-get install -y it)');
  assert.match(output, /Total:\s+0/);
  assert.match(output, /Skipped:\s+2/);
  assert.not.match(output, /the hook ran|the first test ran/);
});

test('missing under CI=true: one failed test naming the program, exit 1', () => {
  const { status, output } = runChild('no-such-program-here', 'true');
  assert.is(status, 1, output);
  assert.match(output, 'needs no-such-program-here (apt-get install -y it)');
  assert.match(output, /Passed:\s+0/);
  assert.not.match(output, /the hook ran|the first test ran/);
});

test('present (on PATH, or an absolute path): a plain suite whose hooks and tests run', () => {
  for (const program of ['sh', '/bin/sh']) {
    const { status, output } = runChild(program, 'true');
    assert.is(status, 0, output);
    assert.match(output, /the hook ran[\s\S]*the first test ran/);
    assert.match(output, /Passed:\s+2/);
  }
});

test.run();

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { projectionsToRebuild } from '../../projections/index.ts';

// docs/architecture.md tells operators to rebuild read models with `projections:rebuild --all`:
// every projection the code defines must be in it, including those a dispatcher runs.
const test = suite('projections:rebuild --all covers every projection');

const ROOT = new URL('../../projections/', import.meta.url).pathname;
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []));

test('each exported projection of projections/ is rebuilt by --all, and a name alone picks it', async () => {
  const defined = new Set<string>();
  for (const file of files(ROOT)) {
    for (const value of Object.values(await import(file))) {
      const candidate = value as { name?: unknown; eventTypes?: unknown; handle?: unknown };
      if (candidate && typeof candidate === 'object' && typeof candidate.name === 'string' && Array.isArray(candidate.eventTypes) && typeof candidate.handle === 'function')
        defined.add(candidate.name);
    }
  }
  assert.ok(defined.has('webhook-outbox') && defined.has('messaging-deliveries'), [...defined].join(', '));
  const all = new Set(projectionsToRebuild(['--all']).projections.map((p) => p.name));
  assert.equal(
    [...defined].filter((name) => !all.has(name)),
    [],
    'defined but not rebuilt by --all',
  );
  assert.equal(
    projectionsToRebuild(['messaging-deliveries', 'nope']).projections.map((p) => p.name),
    ['messaging-deliveries'],
  );
  assert.equal(projectionsToRebuild(['messaging-deliveries', 'nope']).unknown, ['nope']);
});

test.run();

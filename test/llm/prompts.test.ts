import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadPrompt, PROMPTS_DIR, readManifest, sha256 } from '../../application/llm/prompts.ts';

const test = suite('llm: versioned prompts and their released manifest');
let scratch: string;

test.before(() => {
  scratch = mkdtempSync(join(tmpdir(), 'prompts-'));
});
test.after(() => rmSync(scratch, { recursive: true, force: true }));

test('every released prompt file is byte for byte what its manifest recorded (a released prompt is never edited)', () => {
  const names = readdirSync(PROMPTS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  assert.ok(names.includes('parecer'));
  for (const name of names) {
    const manifest = readManifest(name);
    assert.ok(Object.keys(manifest.released).length > 0, `${name} has no released version`);
    for (const [version, hash] of Object.entries(manifest.released)) {
      const file = join(PROMPTS_DIR, name, `${version}.md`);
      assert.ok(existsSync(file), `${name}/${version}.md is released but missing`);
      assert.is(sha256(readFileSync(file)), hash, `${name}/${version}.md changed after release: write a new version instead`);
    }
  }
});

test('loadPrompt gives the latest released version (v10 after v9), or the one named; drafts are never loaded', () => {
  const dir = join(scratch, 'ordering');
  mkdirSync(join(dir, 'agent'), { recursive: true });
  for (const version of ['v9', 'v10', 'v11']) writeFileSync(join(dir, 'agent', `${version}.md`), `texto ${version}`);
  writeFileSync(join(dir, 'agent', 'manifest.json'), JSON.stringify({ released: { v9: sha256('texto v9'), v10: sha256('texto v10') } }));
  assert.equal(loadPrompt('agent', undefined, dir), { name: 'agent', version: 'v10', text: 'texto v10' });
  assert.is(loadPrompt('agent', 'v9', dir).text, 'texto v9');
  assert.throws(() => loadPrompt('agent', 'v11', dir), /no released version v11/);
});

test('a released file edited afterwards is refused with the fix', () => {
  const dir = join(scratch, 'edited');
  mkdirSync(join(dir, 'agent'), { recursive: true });
  writeFileSync(join(dir, 'agent', 'v1.md'), 'texto editado');
  writeFileSync(join(dir, 'agent', 'manifest.json'), JSON.stringify({ released: { v1: sha256('texto original') } }));
  assert.throws(() => loadPrompt('agent', undefined, dir), /changed after release; fix: restore it/);
});

test('the parecer prompt loads', () => {
  const prompt = loadPrompt('parecer');
  assert.is(prompt.name, 'parecer');
  assert.match(prompt.text, /riskLevel/);
});

test.run();

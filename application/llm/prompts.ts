import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Versioned prompts (docs/committee.md, Prompts): `prompts/<name>/<version>.md`, released by
 * listing the file's sha256 in `prompts/<name>/manifest.json` (`{"released": {"v1": "<sha256>"}}`).
 * A released file never changes: a new wording is a new version. A file not yet in the manifest
 * is a draft and is never loaded, so a half-written prompt cannot reach a model.
 */
export const PROMPTS_DIR = fileURLToPath(new URL('../../prompts/', import.meta.url));

export interface Prompt {
  name: string;
  /** The file's version (`v1`): what promptVersion records. */
  version: string;
  text: string;
}

export interface PromptManifest {
  released: Record<string, string>;
}

export const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

/** Versions compare by their number (v10 after v9). */
const versionNumber = (version: string) => Number(/^v(\d+)$/.exec(version)?.[1] ?? NaN);

export function readManifest(name: string, dir = PROMPTS_DIR): PromptManifest {
  const path = join(dir, name, 'manifest.json');
  if (!existsSync(path)) throw new Error(`prompt ${name} has no manifest (${path})`);
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as PromptManifest;
  for (const version of Object.keys(manifest.released)) {
    if (Number.isNaN(versionNumber(version))) throw new Error(`prompt ${name}: version "${version}" is not of the form v<number>`);
  }
  return manifest;
}

const cache = new Map<string, Prompt>();

/**
 * A released prompt: the latest version, or the one named (a rerun under the version of its
 * day). A file whose bytes differ from its manifest entry is refused: a released prompt was
 * edited, and opinions would no longer say which words produced them.
 */
export function loadPrompt(name: string, version?: string, dir = PROMPTS_DIR): Prompt {
  const manifest = readManifest(name, dir);
  const chosen = version ?? Object.keys(manifest.released).sort((a, b) => versionNumber(b) - versionNumber(a))[0];
  if (!chosen || !(chosen in manifest.released)) throw new Error(`prompt ${name} has no released version ${version ?? ''}`.trim());
  const key = `${dir}\0${name}\0${chosen}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const bytes = readFileSync(join(dir, name, `${chosen}.md`));
  if (sha256(bytes) !== manifest.released[chosen]) throw new Error(`prompt ${name}/${chosen}.md changed after release; fix: restore it and write the new wording as a new version`);
  const prompt = { name, version: chosen, text: bytes.toString('utf8') };
  cache.set(key, prompt);
  return prompt;
}

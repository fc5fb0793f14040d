import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { suite, type Test } from 'uvu';

/** A program a suite runs that npm does not install: a name looked up on PATH, or an absolute path. */
export interface SystemTool {
  command: string;
  /** How to get it, said in the note (and in CI's failure). */
  install: string;
}

export const poppler = (command: 'pdfsig' | 'pdfdetach' | 'pdftotext' | 'pdftoppm'): SystemTool => ({ command, install: 'apt-get install -y poppler-utils' });

/** Tesseract with its Portuguese data (the OCR of scanned documents). */
export const tesseract: SystemTool = { command: 'tesseract', install: 'apt-get install -y tesseract-ocr tesseract-ocr-por' };

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function found(tool: SystemTool): boolean {
  if (isAbsolute(tool.command)) return executable(tool.command);
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, tool.command)));
}

/** CI sets CI=true; `npm test` on a developer's machine does not. */
const inCi = () => !!process.env.CI && process.env.CI !== 'false' && process.env.CI !== '0';

/**
 * A uvu suite that needs programs npm does not install. With them all present it is a plain
 * suite. Without them, outside CI, it prints one note saying what to install and counts every
 * test as skipped (its hooks never run: a browser is not launched, a server not started), so
 * `npm ci && npm test` on a fresh machine passes. Under CI the same absence is one failed test
 * naming the missing programs: CI installs them (.ci/run), and must not go green by skipping.
 */
export function suiteNeeding<T = Record<string, unknown>>(title: string, tools: SystemTool[]): Test<T> {
  const real = suite<T>(title);
  const missing = tools.filter((tool) => !found(tool));
  if (missing.length === 0) return real;
  const what = missing.map((tool) => `${tool.command} (${tool.install})`).join(', ');
  if (inCi()) {
    real(`needs ${what}`, () => {
      throw new Error(`CI=true and ${what} missing: a suite that needs a system tool fails in CI rather than skipping`);
    });
  } else {
    console.log(`${title}: skipped, not installed: ${what}`);
  }
  const ignored = Object.assign(() => undefined, { each: () => undefined });
  const skip = () => real.skip();
  return Object.assign(skip, { only: skip, skip, before: ignored, after: ignored, run: real.run });
}

/**
 * `npm run lint:openapi`: build /openapi.json from the route tables (no server, no database) and
 * lint it with Redocly's recommended ruleset. Exit 1 on any error; warnings are printed.
 * `--print` writes the document to stdout instead.
 */
import { pathToFileURL } from 'node:url';
import { createConfig, formatProblems, getTotals, lintFromString, type NormalizedProblem } from '@redocly/openapi-core';
import { loadConfig } from '../config/index.ts';
import { routeTables } from '../http/modules.ts';
import { buildOpenApi } from '../http/openapi.ts';

/** Redocly's recommended rules, and the two this contract cannot follow. */
export async function lintOpenApi(document: unknown): Promise<NormalizedProblem[]> {
  const config = await createConfig({
    extends: ['recommended'],
    rules: {
      // The contract names /report/section/{id}, /report/{id}/decisions, /report/{id}/export and
      // /report/download/{blobId}: same shape, told apart by their static segments (section,
      // download are never report ids, which are 24 hex characters). None of them can move.
      'no-ambiguous-paths': 'off',
      // Built here with PUBLIC_BASE_URL's development default (localhost); a deployment sets its own.
      'no-server-example.com': 'off',
    },
  });
  return lintFromString({ source: JSON.stringify(document, null, 2), absoluteRef: 'openapi.json', config });
}

async function main(): Promise<void> {
  const document = buildOpenApi(routeTables, { serverUrl: loadConfig().PUBLIC_BASE_URL });
  if (process.argv.includes('--print')) {
    console.log(JSON.stringify(document, null, 2));
    return;
  }
  const problems = await lintOpenApi(document);
  const totals = getTotals(problems);
  formatProblems(problems, { format: 'stylish', totals, version: 'openapi-core' });
  console.log(`openapi.json: ${totals.errors} errors, ${totals.warnings} warnings`);
  process.exitCode = totals.errors > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

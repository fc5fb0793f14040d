import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Type from 'typebox';
import { Messages } from '../../domain/shared/messages.ts';
import { route } from '../route.ts';
import { CONSOLE_CSS } from './html.ts';

const require = createRequire(import.meta.url);
/** Served from the installed packages, never a CDN; read once. */
const ASSETS: Record<string, { type: string; bytes: Buffer }> = {
  'htmx.min.js': { type: 'text/javascript; charset=utf-8', bytes: readFileSync(require.resolve('htmx.org/dist/htmx.min.js')) },
  'sse.min.js': { type: 'text/javascript; charset=utf-8', bytes: readFileSync(require.resolve('htmx-ext-sse/dist/sse.min.js')) },
  'chart.umd.min.js': { type: 'text/javascript; charset=utf-8', bytes: readFileSync(join(dirname(require.resolve('chart.js')), 'chart.umd.min.js')) },
  'painel.js': { type: 'text/javascript; charset=utf-8', bytes: readFileSync(new URL('./assets/painel.js', import.meta.url)) },
  'trilha.js': { type: 'text/javascript; charset=utf-8', bytes: readFileSync(new URL('./assets/trilha.js', import.meta.url)) },
  'console.css': { type: 'text/css; charset=utf-8', bytes: Buffer.from(CONSOLE_CSS) },
};

/** The console's scripts and stylesheet: from the installed packages and this folder, never a CDN. */
export const consoleAssetRoute = route({
  method: 'get',
  path: '/console/assets/:file',
  summary: "The console's script and style files (htmx, its SSE extension, chart.js, the stylesheet), served locally",
  auth: false,
  files: ['text/javascript', 'text/css'],
  params: Type.Object({ file: Type.String({ maxLength: 40 }) }),
  errors: [404],
  async handle({ params }) {
    const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
    if (!asset) return { status: 404, body: { code: 404, message: Messages.resourceNotFound } };
    return { status: 200, raw: asset.bytes, headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' } };
  },
});

/**
 * The export part of `npm run bench:dashboard` (scripts/bench-dashboard.ts calls it over the
 * organization it seeded): GET /v1/proposals/dashboard/rows of 5000 rows, uncached (nothing is
 * cached; each call runs its query), over HTTP as JSON, CSV and XLSX, p50 and p95 of
 * BENCH_EXPORT_RUNS sequential calls each (one export per organization runs at a time), for 366
 * days and 366 days with three filters, and the EXPLAIN (ANALYZE, BUFFERS) of the filtered query.
 * Target: under 1 s per 5000-row export.
 */
import type { Knex } from 'knex';

const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 10);
const TARGET_MS = 1000;
const FILTERS = { status: ['ISSUED', 'REJECTED'], entityType: ['COMPANY'], origin: ['API', 'CHANNEL', 'CRM'] };

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

interface Figures {
  name: string;
  format: 'json' | 'csv' | 'xlsx';
  rows: number | null;
  bytes: number;
  p50Ms: number;
  p95Ms: number;
}

async function measure(url: string, token: string, name: string, query: string, format: Figures['format']): Promise<Figures> {
  const times: number[] = [];
  let body = Buffer.alloc(0);
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/v1/proposals/dashboard/rows?${query}&format=${format}`, { headers: { authorization: `Bearer ${token}` } });
    body = Buffer.from(await response.arrayBuffer());
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`export ${format}: ${response.status} ${body.toString('utf8').slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  const rows = format === 'json' ? JSON.parse(body.toString('utf8')).rows.length : format === 'csv' ? body.toString('utf8').split('\r\n').length - 2 : null;
  return { name, format, rows, bytes: body.length, p50Ms: Math.round(percentile(times, 50)), p95Ms: Math.round(percentile(times, 95)) };
}

/** Prints the export's figures over the organization's proposals, the period ending at `to`. */
export async function benchExport(url: string, db: Knex, token: string, organizationId: string, to: string): Promise<void> {
  const from = new Date(Date.parse(to) - 366 * 86_400_000).toISOString();
  const period = `from=${from}&to=${to}`;
  const filtered = `${period}&${Object.entries(FILTERS)
    .map(([key, values]) => `${key}=${values.join(',')}`)
    .join('&')}`;
  const figures: Figures[] = [];
  for (const [name, query] of [
    ['366 days', period],
    ['366 days, 3 filters', filtered],
  ] as const) {
    for (const format of ['json', 'csv', 'xlsx'] as const) figures.push(await measure(url, token, name, query, format));
  }
  console.log(`\nexport of 5000 rows (GET /v1/proposals/dashboard/rows, uncached, ${RUNS} sequential calls each)`);
  console.log('query                    format  rows   KiB    p50 ms   p95 ms   target < 1000 ms');
  for (const f of figures) {
    const met = f.p95Ms < TARGET_MS ? 'met' : 'MISSED';
    console.log(
      `${f.name.padEnd(24)} ${f.format.padEnd(6)}  ${String(f.rows ?? '-').padStart(4)}  ${(f.bytes / 1024).toFixed(0).padStart(5)}   ${String(f.p50Ms).padStart(6)}   ${String(f.p95Ms).padStart(6)}   ${met}`,
    );
  }
  const { rows } = await db.raw(
    `explain (analyze, buffers) select * from proposal_facts where organization_id = ? and created_at >= ? and created_at < ?
     and status in ('ISSUED', 'REJECTED') and entity_type = 'COMPANY' and origin in ('API', 'CHANNEL', 'CRM') order by created_at desc, id desc limit 5001`,
    [organizationId, from, to],
  );
  console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the filtered export query:\n${rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n')}`);
}

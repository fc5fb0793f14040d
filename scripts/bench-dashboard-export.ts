/**
 * The export part of `npm run bench:dashboard`: GET /v1/proposals/dashboard/rows of 5000 rows,
 * uncached (nothing is cached; each call runs its query), over HTTP as JSON, CSV and XLSX, with
 * p50 and p95 of RUNS calls each. The dashboard's script calls `benchExport` over the organization
 * it seeded; run alone (`tsx scripts/bench-dashboard-export.ts`), it seeds BENCH_EXPORT_PROPOSALS
 * (default 1,000,000) proposal_facts rows of one organization across 12 months itself, in one
 * SQL statement, and measures the same. Target: under 1 s per 5000-row export.
 */
import { pathToFileURL } from 'node:url';
import type { TestApp } from '../test/support/app.ts';

const RUNS = Number(process.env.BENCH_EXPORT_RUNS ?? 10);
export const EXPORT_TARGET_MS = 1000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export interface ExportFigures {
  format: 'json' | 'csv' | 'xlsx';
  query: string;
  rows: number;
  bytes: number;
  p50Ms: number;
  p95Ms: number;
}

/** One format of one query, RUNS times in a row (one export per organization at a time: never concurrent). */
async function measure(app: TestApp, token: string, query: string, format: ExportFigures['format']): Promise<ExportFigures> {
  const times: number[] = [];
  let bytes = 0;
  let rows = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const response = await fetch(`${app.url}/v1/proposals/dashboard/rows?${query}&format=${format}`, { headers: { authorization: `Bearer ${token}` } });
    const body = Buffer.from(await response.arrayBuffer());
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`export ${format}: ${response.status} ${body.toString('utf8').slice(0, 200)}`);
    bytes = body.length;
    rows = format === 'json' ? JSON.parse(body.toString('utf8')).rows.length : format === 'csv' ? body.toString('utf8').split('\r\n').length - 2 : rows;
  }
  times.sort((a, b) => a - b);
  return { format, query, rows, bytes, p50Ms: Math.round(percentile(times, 50)), p95Ms: Math.round(percentile(times, 95)) };
}

/** The export figures over an organization's seeded proposals: 366 days, and 366 days with three filters. */
export async function benchExport(app: TestApp, token: string, to: string): Promise<ExportFigures[]> {
  const from = new Date(Date.parse(to) - 366 * 86_400_000).toISOString();
  const period = `from=${from}&to=${to}`;
  const figures: ExportFigures[] = [];
  for (const query of [period, `${period}&status=ISSUED,REJECTED&entityType=COMPANY&origin=API,CHANNEL,CRM`]) {
    for (const format of ['json', 'csv', 'xlsx'] as const) figures.push(await measure(app, token, query, format));
  }
  return figures;
}

export function printExport(figures: readonly ExportFigures[]): void {
  console.log('\nExport (GET /v1/proposals/dashboard/rows, uncached, sequential):');
  for (const f of figures) {
    const filters = f.query.includes('status=') ? '366 days + 3 filters' : '366 days';
    const ok = f.p95Ms < EXPORT_TARGET_MS ? 'yes' : 'NO';
    console.log(`  ${filters.padEnd(22)} ${f.format.padEnd(5)} rows ${f.rows || '-'}  ${(f.bytes / 1024).toFixed(0)} KiB  p50 ${f.p50Ms} ms  p95 ${f.p95Ms} ms  (< ${EXPORT_TARGET_MS} ms: ${ok})`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const { startTestApp } = await import('../test/support/app.ts');
  const { provisionTenant } = await import('../test/support/identity.ts');
  const { seedProposalFacts } = await import('../test/support/proposal-facts.ts');
  const count = Number(process.env.BENCH_EXPORT_PROPOSALS ?? 1_000_000);
  const app = await startTestApp({ LOG_LEVEL: 'fatal', RATE_LIMIT_PER_CREDENTIAL: '1000000', RATE_LIMIT_PER_ORGANIZATION: '1000000' });
  try {
    const tenant = await provisionTenant(app);
    const to = '2026-11-24T03:00:00.000Z';
    const seeded = performance.now();
    // Twelve months of proposals, evenly spread.
    await seedProposalFacts(app.app.db, tenant.organizationId, count, to, Math.floor((365 * 86_400) / count));
    await app.app.db.raw('analyze proposal_facts');
    console.log(`seeded ${count} proposals in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
    printExport(await benchExport(app, tenant.token, to));
    const { rows } = await app.app.db.raw(
      `explain (analyze, buffers) select * from proposal_facts where organization_id = ? and created_at >= ? and created_at < ?
       and status in ('ISSUED','REJECTED') and entity_type = 'COMPANY' and origin in ('API','CHANNEL','CRM') order by created_at desc, id desc limit 5001`,
      [tenant.organizationId, new Date(Date.parse(to) - 366 * 86_400_000).toISOString(), to],
    );
    console.log('\nEXPLAIN of the filtered export query:\n' + rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'));
  } finally {
    await app.stop();
  }
}

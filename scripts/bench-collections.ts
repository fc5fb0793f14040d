/**
 * `npm run bench:collections`: collections created, sent and completed through HTTP and the
 * recipients' pages, then a 100,000-entry trail verified offline.
 *
 * Starts the whole service (every role, one process) on a throw-away embedded PostgreSQL with a
 * tenant and a real webhook receiver on 127.0.0.1 subscribed to collection.completed. CLIENTS
 * clients, in this process, each create a collection of five DOCUMENT items for a new company
 * (AUTOMATIC resolution, notification channel NONE: the integrator delivers the link returned at
 * creation), open the recipient's page and upload one PDF per item through the page's form, as a
 * phone would. Every PDF is analysed by the registry's offline analyser and resolves its item; the
 * fifth resolution completes the collection. Prints collections per second (first POST to the last
 * collection.completed received), and p50/p99 of the time from a collection's last upload reply to
 * its collection.completed at the receiver (target < 2 s). Then runs scripts/bench-trail.ts (a
 * 100,000-entry trail exported and verified by scripts/verify-trail.ts, target < 2 s).
 * BENCH_COLLECTIONS and BENCH_CLIENTS override the counts; BENCH_TRAIL=0 skips the trail part.
 */
import { execFileSync } from 'node:child_process';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { checkDigitsOf } from '../domain/shared/document.ts';
import { startTestApp } from '../test/support/app.ts';
import { provisionTenant } from '../test/support/identity.ts';
import { startReceiver } from '../test/support/webhook-receiver.ts';

const COLLECTIONS = Number(process.env.BENCH_COLLECTIONS ?? 1000);
// Four clients keep two cores busy without saturating them; 16 measure queueing in the analysis.
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const TARGET_COMPLETION_P99_MS = 2000;
const DEADLINE_MS = 15 * 60_000;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
const today = new Date().toLocaleDateString('pt-BR', { timeZone: 'America/Sao_Paulo' });

/** One PDF per expected type, whose text the offline analyser reads as that type and valid. */
const DOCUMENTS: Array<{ expectedType: string; lines: string[] }> = [
  { expectedType: 'CONTRATO_SOCIAL', lines: ['CONTRATO SOCIAL', 'Cláusula primeira: da denominação social'] },
  { expectedType: 'COMPROVANTE_RESIDENCIA', lines: ['COMPROVANTE DE RESIDÊNCIA', `EMITIDO EM ${today}`] },
  { expectedType: 'EXTRATO_BANCARIO', lines: ['EXTRATO BANCÁRIO', 'Saldo disponível'] },
  { expectedType: 'CERTIDAO_PGFN_PJ', lines: ['CERTIDÃO NEGATIVA DE DÉBITOS RELATIVOS AOS TRIBUTOS FEDERAIS', 'Válida até 31/12/2099'] },
  { expectedType: 'CERTIDAO_FGTS', lines: ['CERTIFICADO DE REGULARIDADE DO FGTS', 'Válido até 31/12/2099'] },
];

async function pdfWith(lines: readonly string[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 760 - i * 20, size: 12, font }));
  return Buffer.from(await pdf.save());
}

function cnpjOf(i: number): string {
  const base = String(10_000_000_0000 + i * 7919).padStart(12, '0');
  return base + checkDigitsOf('cnpj', base);
}

/**
 * Where the time of the last upload goes, per collection, from the stored events' commit times:
 * upload reply (its document was stored before it) -> analysis started (Progressed) -> assessed ->
 * collection.completed stored -> received by the webhook receiver. p50/p99 of each step.
 */
async function printStages(completions: Array<{ collectionId: string; receivedAt: number }>, lastUploadAt: Map<string, number>) {
  const rows: Array<{ collection_id: string; progressed: Date; assessed: Date; completed: Date }> = (
    await app.app.db.raw(`
      with last_doc as (
        select distinct on (data->'source'->>'collectionId') data->'source'->>'collectionId' as collection_id, stream_name from events
        where event_type = 'RegistryDocumentReceived' and jsonb_typeof(data->'source') = 'object'
        order by data->'source'->>'collectionId', global_position desc
      )
      select l.collection_id,
        max(d.created_at) filter (where d.event_type = 'RegistryDocumentProgressed') as progressed,
        max(d.created_at) filter (where d.event_type = 'RegistryDocumentAssessed') as assessed,
        (select created_at from events e where e.stream_name = 'collection-' || l.collection_id and e.event_type = 'CollectionCompleted') as completed
      from last_doc l join events d on d.stream_name = l.stream_name group by l.collection_id`)
  ).rows;
  const byId = new Map(rows.map((r) => [r.collection_id, r]));
  const steps: Record<string, number[]> = {
    'upload reply -> analysis started': [],
    'analysis started -> assessed': [],
    'assessed -> completed stored': [],
    'completed stored -> webhook received': [],
  };
  for (const { collectionId, receivedAt } of completions) {
    const r = byId.get(collectionId);
    const upload = lastUploadAt.get(collectionId);
    if (!r || upload === undefined) continue;
    const times = [upload, r.progressed.getTime(), r.assessed.getTime(), r.completed.getTime(), receivedAt];
    Object.values(steps).forEach((list, i) => list.push(times[i + 1]! - times[i]!));
  }
  for (const [step, list] of Object.entries(steps)) {
    list.sort((a, b) => a - b);
    console.log(`  ${step}: p50 ${percentile(list, 50).toFixed(0)} ms, p99 ${percentile(list, 99).toFixed(0)} ms`);
  }
}

const app = await startTestApp({
  PROCESS_MANAGER_CONCURRENCY: process.env.PROCESS_MANAGER_CONCURRENCY ?? '8',
  RATE_LIMIT_PER_CREDENTIAL: '1000000',
  RATE_LIMIT_PER_ORGANIZATION: '1000000',
  LOG_LEVEL: 'fatal',
});
const receiver = await startReceiver();
try {
  const tenant = await provisionTenant(app);
  const headers = { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(app.url + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = await response.json();
    if (response.status >= 300) throw new Error(`${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  await post('/v1/webhook/subscriptions', { url: `${receiver.url}/named`, events: ['collection.completed'] });
  const files = await Promise.all(DOCUMENTS.map(async (d) => ({ ...d, bytes: await pdfWith(d.lines) })));

  const lastUploadAt = new Map<string, number>();
  let next = 0;
  const begin = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < COLLECTIONS; i = next++) {
        const created = await post('/v1/collections', {
          subject: { name: `Empresa Bench ${i}`, document: cnpjOf(i) },
          items: files.map((f) => ({ kind: 'DOCUMENT', title: f.expectedType, expectedType: f.expectedType })),
          recipients: [{ name: `Contato ${i}`, email: `contato${i}@example.com` }],
          notificationChannel: 'NONE',
          resolutionMode: 'AUTOMATIC',
          send: true,
        });
        const page = created.links[0].url as string;
        const opened = await fetch(page, { headers: { accept: 'text/html' } });
        if (opened.status !== 200) throw new Error(`page: ${opened.status}`);
        await opened.text();
        for (const [index, item] of (created.items as Array<{ id: string }>).entries()) {
          const form = new FormData();
          form.set('file', new Blob([new Uint8Array(files[index]!.bytes)], { type: 'application/pdf' }), 'documento.pdf');
          const sent = await fetch(`${page}/items/${item.id}`, { method: 'POST', body: form, redirect: 'manual', headers: { accept: 'text/html' } });
          if (sent.status !== 303) throw new Error(`upload: ${sent.status} ${await sent.text()}`);
        }
        lastUploadAt.set(created.id, Date.now());
      }
    }),
  );
  const uploadedSeconds = (performance.now() - begin) / 1000;
  await receiver.waitFor(COLLECTIONS, DEADLINE_MS);
  const totalSeconds = (performance.now() - begin) / 1000;

  const completionMs = receiver
    .json()
    .map((body, index) => receiver.received[index]!.at - (lastUploadAt.get(body.data.collectionId) ?? NaN))
    .filter((ms) => Number.isFinite(ms))
    .sort((a, b) => a - b);
  console.log(`collections: ${COLLECTIONS} of 5 items, ${CLIENTS} clients; uploads done in ${uploadedSeconds.toFixed(1)} s`);
  console.log(`collections completed: ${(COLLECTIONS / totalSeconds).toFixed(1)}/s (${totalSeconds.toFixed(1)} s from the first POST to the last collection.completed)`);
  const p99 = percentile(completionMs, 99);
  console.log(
    `last upload -> collection.completed received: p50 ${percentile(completionMs, 50).toFixed(0)} ms, p99 ${p99.toFixed(0)} ms (target < ${TARGET_COMPLETION_P99_MS} ms: ${p99 < TARGET_COMPLETION_P99_MS ? 'met' : 'MISSED'})`,
  );
  await printStages(
    receiver.json().map((body, index) => ({ collectionId: body.data.collectionId as string, receivedAt: receiver.received[index]!.at })),
    lastUploadAt,
  );
} finally {
  await receiver.close();
  await app.stop();
}

if (process.env.BENCH_TRAIL !== '0') {
  execFileSync(process.execPath, ['--import', 'tsx', 'scripts/bench-trail.ts'], { stdio: 'inherit' });
}

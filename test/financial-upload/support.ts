import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DEMO_CNPJ_POLICY } from '../../application/credit-policy/demo-policies.ts';
import { objectStoreFor } from '../../application/object-store.ts';
import { reportStream } from '../../domain/report/events.ts';
import type { TestApp } from '../support/app.ts';
import type { TestTenant } from '../support/identity.ts';

/** A real one-page PDF with `text` on it, padded with an attachment of `padBytes` (incompressible) bytes. */
export async function statementPdf(text: string, padBytes = 0): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  page.drawText(text, { x: 50, y: 700, size: 12, font: await doc.embedFont(StandardFonts.Helvetica) });
  if (padBytes > 0) {
    const pad = Buffer.alloc(padBytes);
    // A cheap pseudo-random fill (xorshift): compression cannot shrink it, and it needs no crypto.
    let x = 2463534242;
    for (let i = 0; i < padBytes; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      pad[i] = x & 0xff;
    }
    await doc.attach(pad, 'pad.bin', { mimeType: 'application/octet-stream' });
  }
  return Buffer.from(await doc.save());
}

export async function createReport(app: TestApp, tenant: TestTenant): Promise<string> {
  const policyId = (await app.call('POST', '/credit-policy/policy', { token: tenant.token, body: DEMO_CNPJ_POLICY })).body.id;
  const reply = await app.call('POST', '/v2/report', { token: tenant.token, body: { document: '10000001000190', type: 'cnpj', policyId } });
  return reply.body.id;
}

/** PUT bytes to an upload URL (which names PUBLIC_BASE_URL: sent to the test service instead). */
export function put(app: TestApp, uploadUrl: string, bytes: Buffer, headers: Record<string, string> = {}) {
  const url = new URL(uploadUrl);
  return fetch(app.url + url.pathname + url.search, { method: 'PUT', body: new Uint8Array(bytes), headers: { 'content-type': 'application/pdf', ...headers } });
}

export async function presign(app: TestApp, tenant: TestTenant, reportId: string, files: Array<{ name: string; size: number }>) {
  const reply = await app.call('POST', `/report/${reportId}/financial-tab/presign`, { token: tenant.token, body: { files } });
  if (reply.status !== 200) throw new Error(`presign: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body as Array<{ key: string; uploadUrl: string; expiresInSeconds: number }>;
}

/** Presign and PUT each file; returns the keys. */
export async function uploadAll(app: TestApp, tenant: TestTenant, reportId: string, files: Array<{ name: string; bytes: Buffer }>): Promise<string[]> {
  const slots = await presign(
    app,
    tenant,
    reportId,
    files.map((f) => ({ name: f.name, size: f.bytes.length })),
  );
  for (const [i, slot] of slots.entries()) {
    const reply = await put(app, slot.uploadUrl, files[i]!.bytes);
    if (reply.status !== 200) throw new Error(`PUT: ${reply.status} ${await reply.text()}`);
  }
  return slots.map((s) => s.key);
}

export const stored = (app: TestApp, key: string) => objectStoreFor(app.app.config).get(key);

export async function submittedBatches(app: TestApp, reportId: string) {
  return (await app.app.store.readStream(reportStream(reportId))).filter((e) => e.type === 'FinancialStatementsSubmitted').map((e) => e.data as any);
}

import { PDFDocument, StandardFonts } from 'pdf-lib';
import * as assert from 'uvu/assert';
import { DomainError } from '../../domain/shared/errors.ts';
import type { TestApp } from '../support/app.ts';
import { checkReply } from '../support/contract.ts';

/** An async command refused with that kind and text. */
export async function assertRefusedAsync(run: () => Promise<unknown>, kind: DomainError['kind'], message: string): Promise<void> {
  const refusal = await run().then(
    () => assert.unreachable('expected a refusal, it was accepted'),
    (error: unknown) => error,
  );
  assert.instance(refusal, DomainError);
  assert.equal([(refusal as DomainError).kind, (refusal as DomainError).message], [kind, message]);
}

/** A one-page PDF whose text is `lines`, as pdf-parse will read it back. */
export async function pdfWith(lines: readonly string[]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  lines.forEach((line, i) => page.drawText(line, { x: 40, y: 780 - 18 * i, font, size: 11 }));
  return Buffer.from(await doc.save());
}

/** The smallest PNG and a JPEG header: enough for file-type to know them by their bytes. */
export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4520000000049454e44ae426082', 'hex');
export const JPEG_BYTES = Buffer.concat([Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'), Buffer.alloc(64), Buffer.from('ffd9', 'hex')]);

export const COMPANY = { document: '11222333000181', name: 'Padaria Exemplo Ltda', entityType: 'COMPANY' as const };
export const PERSON = { document: '52998224725', name: 'Maria Exemplo', entityType: 'PERSON' as const };

/** POST a multipart upload over real HTTP, checking the reply against /openapi.json like `call()`. */
export async function uploadFile(
  app: TestApp,
  token: string,
  path: string,
  file: { bytes: Buffer; fileName: string; type?: string } | null,
  fields: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  if (file) form.append('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.fileName);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const response = await fetch(app.url + path, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  checkReply('POST', path, { status: response.status, body, contentType: response.headers.get('content-type') });
  return { status: response.status, body };
}

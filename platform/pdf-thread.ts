import { parentPort } from 'node:worker_threads';
import { PDFParse } from 'pdf-parse';
import type { PdfReply, PdfRequest } from './pdf-text.ts';

/** pdf.js on a thread of its own (see pdf-text.ts): one document at a time, as the main thread sends them. */
const port = parentPort!;

async function read(data: Uint8Array): Promise<PdfReply['read']> {
  let parser: PDFParse | undefined;
  try {
    parser = new PDFParse({ data });
    const { text, total } = await parser.getText();
    return { text, pages: total };
  } catch {
    return null;
  } finally {
    await parser?.destroy().catch(() => undefined);
  }
}

port.on('message', async ({ id, data }: PdfRequest) => {
  port.postMessage({ id, read: await read(data) } satisfies PdfReply);
});

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PdfReader } from '../../platform/pdf-text.ts';
import { pdfWith } from '../registry/support.ts';
import { eventually } from '../support/wait.ts';

const test = suite('PDF text on a thread of its own');

test('reads text and pages, gives null for bytes pdf.js cannot open, and ends its thread once idle', async () => {
  const reader = new PdfReader({ idleMs: 300, timeoutMs: 60_000 });
  assert.is(reader.running, false, 'no thread before the first PDF');
  const read = await reader.read(await pdfWith(['CONTRATO SOCIAL', 'Razão social: Exemplo Ltda']));
  assert.ok(read);
  assert.is(read.pages, 1);
  assert.ok(read.text.includes('CONTRATO SOCIAL'));
  assert.is(await reader.read(Buffer.from('%PDF-1.4 not really a pdf')), null);
  assert.is(reader.running, true);
  await eventually(() => !reader.running, { timeoutMs: 10_000, what: 'the idle thread to end' });
  assert.ok((await reader.read(await pdfWith(['DE NOVO'])))?.text.includes('DE NOVO'), 'the next PDF starts a thread again');
});

test('a PDF not read within the limit counts as unreadable, and its thread ends', async () => {
  const reader = new PdfReader({ idleMs: 60_000, timeoutMs: 1 });
  assert.is(await reader.read(await pdfWith(['LENTO'])), null);
  assert.is(reader.running, false);
});

test('PDFs sent together are read one after another, each with its own text', async () => {
  const reader = new PdfReader({ idleMs: 100, timeoutMs: 60_000 });
  const [first, second] = await Promise.all([reader.read(await pdfWith(['PRIMEIRO'])), reader.read(await pdfWith(['SEGUNDO']))]);
  assert.ok(first?.text.includes('PRIMEIRO') && !first.text.includes('SEGUNDO'));
  assert.ok(second?.text.includes('SEGUNDO') && !second.text.includes('PRIMEIRO'));
});

test("each owner waits in a queue of its own: a second tenant's file goes before the first one's backlog", async () => {
  const reader = new PdfReader({ idleMs: 100, timeoutMs: 60_000 });
  const finished: string[] = [];
  // Tenant A sends four at once, tenant B one just after.
  const pdfs = await Promise.all(['A1', 'A2', 'A3', 'A4', 'B1'].map((name) => pdfWith([name])));
  await Promise.all(['A1', 'A2', 'A3', 'A4', 'B1'].map((name, i) => reader.read(pdfs[i]!, name[0]).then((r) => finished.push(`${name}:${r?.text.includes(name)}`))));
  assert.equal(finished, ['A1:true', 'A2:true', 'B1:true', 'A3:true', 'A4:true']);
});

test('the thread runs within memory limits: a document that exhausts them is unreadable, and the next thread reads again', async () => {
  const starved = new PdfReader({ idleMs: 100, timeoutMs: 60_000, resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 } });
  assert.is(await starved.read(await pdfWith(['SEM MEMORIA'])), null);
  assert.is(starved.running, false);
  const reader = new PdfReader({ idleMs: 100, timeoutMs: 60_000 });
  assert.ok((await reader.read(await pdfWith(['COM MEMORIA'])))?.text.includes('COM MEMORIA'));
});

test.run();

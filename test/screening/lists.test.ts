import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseOfacSdn, parsePep, publishedAtOfName, ListFormatError, PARSERS } from '../../application/screening/parsers.ts';
import { describeSource, readListSource, ListSourceError } from '../../application/screening/read-source.ts';
import { ScreeningIndex, type ListEntry, type ListVersion } from '../../domain/screening/index.ts';
import { nameSimilarity, nameTokens } from '../../domain/screening/names.ts';

const path = (name: string) => new URL(`../fixtures/lists/${name}`, import.meta.url).pathname;

async function entriesOf(parse: (typeof PARSERS)[keyof typeof PARSERS], source: string, maxBytes = 1_000_000) {
  const entries: ListEntry[] = [];
  const file = readListSource(source, { maxBytes, maxUnzippedBytes: 1_000_000, timeoutMs: 5000 });
  const parsed = await parse(file.chunks, async (batch) => void entries.push(...batch));
  return { entries, parsed, digest: file.digest() };
}

const names = suite('screening: names');

names('accents, case, punctuation, connectors and word order do not count', () => {
  assert.equal(nameTokens('José da SILVA, Jr.'), ['jose', 'silva', 'jr']);
  assert.is(nameSimilarity('JOSÉ DA SILVA', 'Silva, José'), 1);
  assert.is(nameSimilarity('Alfa Comércio Ltda', 'ALFA COMERCIO S/A'), 1);
  assert.is(nameSimilarity('Ana Maria Silva Santos', 'Ana Silva Santos'), 6 / 7);
  assert.is(nameSimilarity('João Silva', 'João Souza'), 0.5);
});

names.run();

const version = (list: ListVersion['list']): ListVersion => ({
  id: `v-${list}`,
  list,
  publishedAt: '2026-11-20',
  publishedAtFrom: 'FILE',
  sha256: 'ab'.repeat(32),
  entryCount: 0,
  loadedAt: '2026-11-29T00:00:00.000Z',
});
const entry = (patch: Partial<ListEntry>): ListEntry => ({ ref: '1', kind: null, name: '', aliases: [], documents: [], maskedCpf: null, details: {}, ...patch });
const cpf = (digits: string, name: string | null) => ({ document: { type: 'cpf' as const, digits }, name });
const cnpj = (digits: string, name: string | null) => ({ document: { type: 'cnpj' as const, digits }, name });

const matching = suite('screening: matching');

matching('a document entry matches by its document only; a namesake with another document is someone else', () => {
  const index = new ScreeningIndex(0.8);
  index.add(version('CEIS'), entry({ ref: 'c1', kind: 'COMPANY', name: 'VALE VERDE TRANSPORTES LTDA', documents: ['33445566000186'] }));
  assert.is(index.screen(cnpj('33445566000186', null), ['CEIS'])[0]?.matchedBy, 'DOCUMENT');
  assert.equal(index.screen(cnpj('11222333000181', 'Vale Verde Transportes'), ['CEIS']), []);
});

matching('a masked CPF needs the name as well; without a name nothing is claimed', () => {
  const index = new ScreeningIndex(0.8);
  index.add(version('PEP'), entry({ ref: 'p1', kind: 'PERSON', name: 'EDUARDA LIMA RIBEIRO', maskedCpf: '718460' }));
  assert.is(index.screen(cpf('35271846008', 'Eduarda Lima Ribeiro'), ['PEP'])[0]?.matchedBy, 'MASKED_CPF_AND_NAME');
  assert.equal(index.screen(cpf('35271846008', null), ['PEP']), []);
  assert.equal(index.screen(cpf('35271846008', 'Eduarda Souza'), ['PEP']), []);
  assert.equal(index.screen(cpf('12345678909', 'Eduarda Lima Ribeiro'), ['PEP']), [], 'the name alone: a masked entry is never matched by name');
});

matching('name matches: at the threshold, a person only against a CPF, a vessel never, only the lists asked', () => {
  const index = new ScreeningIndex(0.8);
  index.add(version('OFAC_SDN'), entry({ ref: 'o1', kind: 'PERSON', name: 'Viktor Ivanovich EXEMPLOV', aliases: ['Viktor Exemplov'] }));
  index.add(version('OFAC_SDN'), entry({ ref: 'o2', kind: 'OTHER', name: 'OCEAN EXEMPLAR' }));
  index.add(version('UN_CONSOLIDATED'), entry({ ref: 'u1', kind: 'COMPANY', name: 'EXEMPLAR RELIEF FOUNDATION' }));
  const [best] = index.screen(cpf('12345678909', 'Exemplov, Viktor'), ['OFAC_SDN']);
  assert.equal([best?.entryRef, best?.score, best?.matchedName], ['o1', 1, 'Viktor Exemplov']);
  assert.is(index.screen(cpf('12345678909', 'Viktor Ivanovich Exemplov Petrov'), ['OFAC_SDN'])[0]?.score, 0.857, '3 of 4 and 3 words: 6/7');
  assert.equal(index.screen(cpf('12345678909', 'Viktor Petrov'), ['OFAC_SDN']), []);
  assert.equal(index.screen(cnpj('11222333000181', 'Viktor Exemplov'), ['OFAC_SDN']), [], 'a person is no company');
  assert.equal(index.screen(cnpj('11222333000181', 'Ocean Exemplar'), ['OFAC_SDN']), [], 'a vessel is neither');
  assert.equal(index.screen(cnpj('11222333000181', 'Exemplar Relief Foundation'), ['OFAC_SDN']), [], 'UN not asked');
  assert.is(index.screen(cnpj('11222333000181', 'Exemplar Relief Foundation'), ['UN_CONSOLIDATED']).length, 1);
});

matching.run();

const files = suite<{ server: Server; url: string; body: Buffer; chunked: boolean }>('screening: list files');

files.before(async (ctx) => {
  ctx.body = readFileSync(path('sdn.xml'));
  ctx.chunked = false;
  ctx.server = createServer((_request, response) => {
    if (ctx.chunked) {
      // No Content-Length: the limit must cut the stream itself.
      response.writeHead(200);
      response.write(ctx.body.subarray(0, 1000));
      response.end(ctx.body.subarray(1000));
    } else response.writeHead(200, { 'content-length': String(ctx.body.length) }).end(ctx.body);
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}/sdn.xml`;
});
files.after((ctx) => {
  ctx.server.close();
});

files('OFAC: entries, kinds, weak aliases left out, Publish_Date; from a file and from an address alike', async (ctx) => {
  const fromFile = await entriesOf(parseOfacSdn, path('sdn.xml'));
  const fromUrl = await entriesOf(parseOfacSdn, ctx.url);
  assert.equal(fromUrl.entries, fromFile.entries);
  assert.equal(fromUrl.digest, fromFile.digest);
  assert.is(fromFile.parsed.publishedAt, '2026-11-25');
  assert.equal(
    fromFile.entries.map((e) => [e.ref, e.kind, e.name, e.aliases]),
    [
      ['36', 'COMPANY', 'AEROCARIBBEAN AIRLINES', ['AERO-CARIBBEAN']],
      ['90001', 'PERSON', 'Viktor Ivanovich EXEMPLOV', []],
      ['90010', 'OTHER', 'OCEAN EXEMPLAR', []],
    ],
  );
});

files('the size limit: refused by Content-Length, and cut when the body has none', async (ctx) => {
  const limit = ctx.body.length - 1;
  try {
    await entriesOf(parseOfacSdn, ctx.url, limit);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ListSourceError);
    assert.match((error as Error).message, /acima de SCREENING_MAX_BYTES/);
  }
  ctx.chunked = true;
  try {
    await entriesOf(parseOfacSdn, ctx.url, limit);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ListSourceError);
    assert.match((error as Error).message, /passa de SCREENING_MAX_BYTES/);
  } finally {
    ctx.chunked = false;
  }
});

files('a file of another list is refused, naming what is missing', async () => {
  try {
    await entriesOf(parsePep, path('20261120_CEIS.csv'));
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ListFormatError);
    assert.match((error as Error).message, /não é o CSV do PEP: faltam as colunas CPF, Nome_PEP/);
  }
  try {
    await entriesOf(PARSERS.UN_CONSOLIDATED, path('sdn.xml'));
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ListFormatError);
  }
});

files('CEIS in ISO-8859-1: masked person CPFs, company CNPJs, every name the row gives', async () => {
  const { entries } = await entriesOf(PARSERS.CEIS, path('20261120_CEIS.csv'));
  assert.equal(
    entries.map((e) => [e.ref, e.kind, e.documents, e.maskedCpf]),
    [
      ['316001', 'COMPANY', ['33445566000186'], null],
      ['316136', 'PERSON', [], '921012'],
    ],
  );
  assert.is(entries[1]!.name, 'MÁRIO EXEMPLO LACERDA');
});

files('publication dates from the Portal file names', () => {
  assert.is(publishedAtOfName('/data/20261120_CEIS.csv'), '2026-11-20');
  assert.is(publishedAtOfName('https://portaldatransparencia.gov.br/download-de-dados/ceis/20261120'), '2026-11-20');
  assert.is(publishedAtOfName('202610_PEP.csv'), '2026-10-01');
  assert.is(publishedAtOfName('/data/ceis.csv'), null);
});

files.run();

/** A ZIP as the Portal serves it: one CSV named by date (fflate's zipSync, deflated). */
const zipOf = (files: Record<string, Uint8Array>) => Buffer.from(zipSync(files, { level: 6 }));
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const refusal = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => assert.unreachable('not refused') as never,
    (error: Error) => error,
  );

const zips = suite<{ server: Server; url: string; body: Buffer; dir: string }>('screening: the Portal ZIPs');

zips.before(async (ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'screening-zip-'));
  ctx.server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/zip' }).end(ctx.body);
  });
  await new Promise<void>((resolve) => ctx.server.listen(0, '127.0.0.1', resolve));
  // The Portal's download address carries the date; this one does not, so the entry's name gives it.
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}/download-de-dados/ceis`;
});
zips.after((ctx) => {
  ctx.server.close();
  rmSync(ctx.dir, { recursive: true, force: true });
});

zips('a ZIP holding the CEIS CSV, from an address and from a file: the CSV entries, the ZIP SHA-256, the entry name', async (ctx) => {
  const csv = readFileSync(path('20261120_CEIS.csv'));
  ctx.body = zipOf({ 'LEIAME.txt': new TextEncoder().encode('dados abertos'), '20261120_CEIS.csv': csv });
  const file = join(ctx.dir, 'ceis.zip');
  writeFileSync(file, ctx.body);
  const plain = await entriesOf(PARSERS.CEIS, path('20261120_CEIS.csv'));
  for (const source of [ctx.url, file, `file://${file}`]) {
    const zipped = await entriesOf(PARSERS.CEIS, source);
    assert.equal(zipped.entries, plain.entries, source);
    assert.equal(zipped.digest, { sha256: sha256Of(ctx.body), bytes: ctx.body.length, entryName: '20261120_CEIS.csv' }, source);
  }
  assert.is(plain.digest.entryName, null);
});

zips('a zip bomb is refused: by its declared size, and by what it inflates to when the header lies', async (ctx) => {
  const zeros = new Uint8Array(5_000_000).fill(0x30);
  ctx.body = zipOf({ '20261120_CEIS.csv': zeros });
  assert.ok(ctx.body.length < 20_000, 'a few kB that inflate to 5 MB');
  let error = await refusal(entriesOf(PARSERS.CEIS, ctx.url));
  assert.instance(error, ListFormatError);
  assert.match(error.message, /declara 5000000 bytes descompactados, acima de SCREENING_MAX_UNZIPPED_BYTES \(1000000\)/);
  // The local header's uncompressed size (offset 22) rewritten to 100: the bytes inflated are counted.
  ctx.body.writeUInt32LE(100, 22);
  error = await refusal(entriesOf(PARSERS.CEIS, ctx.url));
  assert.instance(error, ListFormatError);
  assert.match(error.message, /passa de SCREENING_MAX_UNZIPPED_BYTES \(1000000 bytes\) descompactados/);
});

zips('an archive with two CSVs, or none, is refused naming why', async (ctx) => {
  const csv = readFileSync(path('20261120_CEIS.csv'));
  ctx.body = zipOf({ '20261120_CEIS.csv': csv, '20261120_CNEP.csv': readFileSync(path('20261120_CNEP.csv')) });
  let error = await refusal(entriesOf(PARSERS.CEIS, ctx.url));
  assert.instance(error, ListFormatError);
  assert.match(error.message, /tem mais de um CSV \(20261120_CEIS.csv, 20261120_CNEP.csv\); esperado exatamente um/);
  ctx.body = zipOf({ 'LEIAME.txt': csv });
  error = await refusal(entriesOf(PARSERS.CEIS, ctx.url));
  assert.match(error.message, /nenhum arquivo \.csv dentro/);
  ctx.body = zipOf({ '20261120_CEIS.csv': csv }).subarray(0, 200);
  error = await refusal(entriesOf(PARSERS.CEIS, ctx.url));
  assert.instance(error, ListFormatError, 'a truncated archive');
});

zips('a source is shown without its credentials: userinfo, query and fragment dropped, a file by its name', () => {
  assert.equal(describeSource('https://user:secret@portal.example/download/ceis?token=abc#x'), { kind: 'ADDRESS', location: 'https://portal.example/download/ceis' });
  assert.equal(describeSource('/srv/lists/20261120_CEIS.zip'), { kind: 'FILE', location: '20261120_CEIS.zip' });
});

zips.run();

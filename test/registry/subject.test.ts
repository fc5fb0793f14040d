import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OcrMessages } from '../../platform/ocr.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { pagesAsPng, textlessPdf } from '../support/scan.ts';
import { poppler, suiteNeeding, tesseract } from '../support/system-tools.ts';
import { COMPANY, pdfWith, uploadFile } from './support.ts';
import { eventually } from '../support/wait.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
  registryId: string;
}

async function setUp(ctx: Ctx, env: Record<string, string> = {}) {
  ctx.app = await startTestApp(env);
  ctx.tenant = await provisionTenant(ctx.app);
  const created = await ctx.app.call('POST', '/v1/registry', { token: ctx.tenant.token, body: { ...COMPANY, document: '11.222.333/0001-81' } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  ctx.registryId = created.body.id;
}

/** Uploads a file over HTTP and waits for its opinion. */
async function analysed(ctx: Ctx, bytes: Buffer, fileName: string, expectedType = 'CONTRATO_SOCIAL') {
  const path = `/v1/registry/${ctx.registryId}/documents`;
  const received = await uploadFile(ctx.app, ctx.tenant.token, path, { bytes, fileName }, { expectedType });
  assert.is(received.status, 201, JSON.stringify(received.body));
  return eventually(
    async () => {
      const reply = await ctx.app.call('GET', `${path}/${received.body.id}`, { token: ctx.tenant.token });
      return !['RECEIVED', 'PROCESSING'].includes(reply.body.status) && reply.body;
    },
    { timeoutMs: 60_000, what: `document ${received.body.id} analysed` },
  );
}

// Tesseract pointed at a binary that is not there: what a server without it does.
const test = suite<Ctx>("registry: a document must name the registry's subject; a scan without Tesseract goes to manual review (HTTP)");
test.before((ctx) => setUp(ctx, { OCR_TESSERACT_PATH: '/nonexistent/bin/tesseract' }));
test.after(async (ctx) => {
  await ctx.app?.stop();
});

test("a CONTRATO SOCIAL naming another CNPJ is REJECTED, saying it is someone else's; one naming the subject's CNPJ (any formatting) or name is VALIDATED", async (ctx) => {
  const other = await analysed(
    ctx,
    await pdfWith(['CONTRATO SOCIAL', 'Outra Empresa Comercial S.A., inscrita no CNPJ sob o nº 45.723.174/0001-10', 'Cláusula primeira - da denominação']),
    'contrato-outra.pdf',
  );
  assert.equal(
    [other.status, other.opinion.verdict, other.opinion.reason],
    ['REJECTED', 'INVALIDO', 'O documento identificado como CONTRATO_SOCIAL menciona outro CNPJ, não o do titular do cadastro: é de outra pessoa ou empresa.'],
  );
  const byDocument = await analysed(ctx, await pdfWith(['CONTRATO SOCIAL', 'Sociedade inscrita no CNPJ 11222333/0001-81', 'Cláusula primeira - da denominação']), 'contrato.pdf');
  assert.equal([byDocument.status, byDocument.opinion.verdict, byDocument.opinion.reason], ['VALIDATED', 'VALIDO', 'Documento identificado como CONTRATO_SOCIAL.']);
  const byName = await analysed(ctx, await pdfWith(['CONTRATO SOCIAL DA EXEMPLO PADARIA LTDA', 'Sócia: Maria, CPF 529.982.247-25']), 'contrato-nome.pdf');
  assert.equal([byName.status, byName.opinion.verdict], ['VALIDATED', 'VALIDO']);
  const nobody = await analysed(ctx, await pdfWith(['CONTRATO SOCIAL', 'Cláusula primeira - da denominação']), 'contrato-sem-nome.pdf');
  assert.equal(
    [nobody.status, nobody.opinion.verdict, nobody.opinion.reason],
    ['MANUAL_REVIEW', 'INCONCLUSIVO', 'O documento identificado como CONTRATO_SOCIAL não menciona o titular do cadastro (nem o CNPJ nem o nome): é preciso conferir.'],
  );
});

test('a scanned PDF (no text layer) with Tesseract missing: MANUAL_REVIEW with that reason', async (ctx) => {
  const scan = await analysed(ctx, await textlessPdf(), 'contrato-digitalizado.pdf');
  assert.equal([scan.status, scan.opinion.type, scan.opinion.verdict, scan.opinion.reason], ['MANUAL_REVIEW', 'CONTRATO_SOCIAL', 'ANALISE_MANUAL', OcrMessages.tesseractMissing]);
});

const withOcr = suiteNeeding<Ctx>('registry: a photo of a document read by Tesseract (HTTP)', [tesseract, poppler('pdftoppm')]);
withOcr.before((ctx) => setUp(ctx));
withOcr.after(async (ctx) => {
  await ctx.app?.stop();
});

withOcr("a PNG of a contract naming the subject is VALIDATED from its OCR text; one of another company's is REJECTED", async (ctx) => {
  const photo = async (lines: string[]) => (await pagesAsPng(await pdfWith(lines), 200))[0]!;
  const own = await analysed(ctx, await photo(['CONTRATO SOCIAL', 'PADARIA EXEMPLO LTDA', 'CNPJ 11.222.333/0001-81']), 'contrato.png');
  assert.equal([own.mimeType, own.status, own.opinion.verdict], ['image/png', 'VALIDATED', 'VALIDO']);
  assert.match(own.opinion.reason, /^Documento identificado como CONTRATO_SOCIAL\. Texto lido por OCR \(confiança média \d+%\)\.$/);
  const foreign = await analysed(ctx, await photo(['CONTRATO SOCIAL', 'OUTRA EMPRESA COMERCIAL S.A.', 'CNPJ 45.723.174/0001-10']), 'outro.png');
  assert.equal([foreign.status, foreign.opinion.verdict], ['REJECTED', 'INVALIDO']);
});

test.run();
withOcr.run();

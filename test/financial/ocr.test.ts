import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FinancialExtractionMessages } from '../../domain/financial/messages.ts';
import { OcrMessages } from '../../platform/ocr.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { KNOWN, PLAIN_LAYOUT, pdfkitStatements } from '../support/financial-statements.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { scanned, textlessPdf } from '../support/scan.ts';
import { poppler, suiteNeeding, tesseract } from '../support/system-tools.ts';
import { extractedSection, registryOf, settledStatements, statementsReport, submitStatements } from './support.ts';

interface Ctx {
  app: TestApp;
  tenant: TestTenant;
}

/** A statement as an accountant's office sends it: printed, signed, scanned; no text layer. */
const scannedStatement = async (document: string) => scanned(await pdfkitStatements(KNOWN, { ...PLAIN_LAYOUT, heading: `Empresa Exemplo Ltda - CNPJ ${document}` }), 200);

const withOcr = suiteNeeding<Ctx>('financial statements: a scanned statement read by Tesseract, end to end over HTTP', [tesseract, poppler('pdftoppm')]);

withOcr.before(async (ctx) => {
  ctx.app = await startTestApp();
  ctx.tenant = await provisionTenant(ctx.app);
});
withOcr.after(async (ctx) => {
  await ctx.app?.stop();
});

withOcr('an image-only PDF: every figure read by OCR, the section and each value say so with the mean confidence; the registry document is validated by its OCR text', async ({ app, tenant }) => {
  const reportId = await statementsReport(app, tenant, '11.222.333/0001-81');
  await submitStatements(app, tenant, reportId, [{ name: 'balanco-digitalizado.pdf', bytes: await scannedStatement('11.222.333/0001-81') }]);
  const section = await extractedSection(app, tenant, reportId, 120_000);
  const details = section.sectionDetails;
  assert.equal([section.status, section.errors], ['DONE', []], JSON.stringify(section.errors));
  assert.equal(
    details.periods.map((p: { periodEnd: string }) => p.periodEnd),
    ['2024-12-31', '2023-12-31'],
  );
  assert.equal(details.periods[0].values, KNOWN['2024-12-31']);
  assert.equal(details.periods[1].values, KNOWN['2023-12-31']);
  assert.ok(
    Object.values(details.periods[0].sources).every((source) => source === 'OCR'),
    JSON.stringify(details.periods[0].sources),
  );
  const [file] = details.files;
  assert.equal([file.textSource, file.ocrProblem, file.readable], ['OCR', null, true]);
  assert.ok(file.ocrConfidence > 0.8 && file.ocrConfidence <= 1, String(file.ocrConfidence));

  const [document] = await settledStatements(app, tenant, await registryOf(app, tenant, '11222333000181'), 1, 120_000);
  assert.equal([document.status, document.opinion.type, document.opinion.verdict], ['VALIDATED', 'DEMONSTRACOES_FINANCEIRAS', 'VALIDO']);
  assert.match(document.opinion.reason, /^Documento identificado como DEMONSTRACOES_FINANCEIRAS\. Texto lido por OCR \(confiança média \d+%\)\.$/);
});

const withoutOcr = suite<Ctx>('financial statements: a scanned statement where Tesseract is not installed goes to manual review, saying why');

withoutOcr.before(async (ctx) => {
  ctx.app = await startTestApp({ OCR_TESSERACT_PATH: '/nonexistent/bin/tesseract' });
  ctx.tenant = await provisionTenant(ctx.app);
});
withoutOcr.after(async (ctx) => {
  await ctx.app?.stop();
});

withoutOcr('the section ends in ERROR with the reason (not INTEGRATION_NO_DATA), the file waits in the registry in MANUAL_REVIEW with the same reason', async ({ app, tenant }) => {
  const reportId = await statementsReport(app, tenant, '11.444.777/0001-61');
  await submitStatements(app, tenant, reportId, [{ name: 'balanco-digitalizado.pdf', bytes: await textlessPdf() }]);
  const section = await extractedSection(app, tenant, reportId);
  assert.equal(
    [section.status, section.errors.map((e: { code: string; message: string }) => [e.code, e.message])],
    ['ERROR', [['INTEGRATION_UNAVAILABLE', FinancialExtractionMessages.scansUnread(['balanco-digitalizado.pdf'], OcrMessages.tesseractMissing)]]],
  );
  const [document] = await settledStatements(app, tenant, await registryOf(app, tenant, '11444777000161'), 1);
  assert.equal([document.status, document.opinion.verdict, document.opinion.reason], ['MANUAL_REVIEW', 'ANALISE_MANUAL', OcrMessages.tesseractMissing]);
});

withOcr.run();
withoutOcr.run();

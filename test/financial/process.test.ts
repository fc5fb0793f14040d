import type Logger from 'bunyan';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FinancialExtractionProcess } from '../../application/financial/process.ts';
import { LanguageModelError, type LanguageModel } from '../../application/llm/port.ts';
import { ObjectStoreError, objectStoreFor, type ObjectStore } from '../../application/object-store.ts';
import { handleCommand, loadState } from '../../application/command-handler.ts';
import { FinancialExtractionMessages } from '../../domain/financial/messages.ts';
import { registryDocumentStream } from '../../domain/registry/document-events.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import { reportStream, type ReportEvent } from '../../domain/report/events.ts';
import type { SubmittedFinancialFile } from '../../domain/report/financial-events.ts';
import type { RecordedEvent } from '../../platform/eventstore/port.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { PLAIN_LAYOUT, pdfkitStatements } from '../support/financial-statements.ts';
import { cnpjPolicy, testIds } from '../support/report.ts';

/**
 * The extraction reaction driven by hand (ROLES=api: no worker races it) over a real database and
 * the local object store, with stores and models that fail on purpose.
 */
interface Ctx {
  app: TestApp;
  pdf: Buffer;
  reports: number;
}
const test = suite<Ctx>('financial statements extraction: retries, failures, the model, replays');
const ORG = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const quiet = { warn() {}, info() {}, error() {} } as unknown as Logger;
const FIGURES = {
  '2024-12-31': {
    currentAssets: 100_000,
    nonCurrentAssets: 50_000,
    currentLiabilities: 40_000,
    nonCurrentLiabilities: 50_000,
    equity: 60_000,
    netRevenue: 300_000,
    grossProfit: 90_000,
    operatingResult: 30_000,
  },
};

test.before(async (ctx) => {
  ctx.app = await startTestApp({ ROLES: 'api' });
  ctx.pdf = await pdfkitStatements(FIGURES, PLAIN_LAYOUT);
  ctx.reports = 0;
});
test.after(async (ctx) => {
  await ctx.app?.stop();
});

const offline: LanguageModel = {
  async generate(request) {
    return {
      output: request.offline(request.input),
      call: { agent: request.agent, model: 'offline', promptVersion: request.prompt.version, inputTokens: 0, outputTokens: 0, costUsd: 0, durationMs: 0, attempts: 1 },
    };
  },
};

/** A report with a BALANCE_SHEET section and one submitted batch of `files` PDFs stored under their keys. */
async function submitted(ctx: Ctx, files: Buffer[]): Promise<{ reportId: string; event: RecordedEvent }> {
  const n = ++ctx.reports;
  const reportId = `${String(n).padStart(4, '0')}${'c'.repeat(20)}`;
  const stream = reportStream(reportId);
  await handleCommand(ctx.app.app.store, stream, reportDecider, {
    type: 'RequestReport',
    reportId,
    organizationId: ORG,
    userId: 'b'.repeat(24),
    document: { type: 'cnpj', digits: '11222333000181' },
    externalId: null,
    policy: cnpjPolicy({ sections: ['BALANCE_SHEET'] }),
    scrEnabled: false,
    sectionIds: testIds(`s${n}`, 3),
    inputs: {},
    at: new Date().toISOString(),
  });
  const store = objectStoreFor(ctx.app.app.config);
  const entries: SubmittedFinancialFile[] = [];
  for (const [i, bytes] of files.entries()) {
    const blobId = `${String(n).padStart(4, '0')}${String(i).padStart(20, '0')}`;
    const key = `financial/${ORG}/${reportId}/${blobId}.pdf`;
    await store.put(key, bytes, 'application/pdf');
    entries.push({ key, blobId, fileName: `balanco-${i}.pdf`, sizeBytes: bytes.length, sha256: 'f'.repeat(64) });
  }
  await handleCommand(ctx.app.app.store, stream, reportDecider, {
    type: 'SubmitFinancialStatements',
    organizationId: ORG,
    userId: 'b'.repeat(24),
    batchId: `${String(n).padStart(4, '0')}${'d'.repeat(20)}`,
    files: entries,
    via: 'MULTIPART',
    at: new Date().toISOString(),
  });
  const events = await ctx.app.app.store.readStream(stream);
  return { reportId, event: events.find((e) => e.type === 'FinancialStatementsSubmitted')! };
}

async function outcome(ctx: Ctx, reportId: string) {
  const events = (await ctx.app.app.store.readStream(reportStream(reportId))).map((e) => ({ type: e.type, data: e.data }) as unknown as ReportEvent);
  const sections = events.filter((e) => e.type === 'ReportSectionUpdated');
  const result = events.find((e) => e.type === 'FinancialStatementsExtracted' || e.type === 'FinancialStatementsExtractionFailed');
  return { section: sections.at(-1)?.data as Extract<ReportEvent, { type: 'ReportSectionUpdated' }>['data'], result: result?.data as Record<string, any>, count: events.length };
}

const process = (ctx: Ctx, store: ObjectStore, model: LanguageModel = offline, waits: number[] = []) =>
  new FinancialExtractionProcess(ctx.app.app, { store, model, sleep: async (ms) => void waits.push(ms) }, quiet);

test('a store failing twice: the third try extracts, waits grow fourfold, attempt 3 recorded', async (ctx) => {
  const { reportId, event } = await submitted(ctx, [ctx.pdf]);
  const real = objectStoreFor(ctx.app.app.config);
  let failures = 0;
  const flaky: ObjectStore = {
    ...real,
    head: real.head.bind(real),
    put: real.put.bind(real),
    delete: real.delete.bind(real),
    presignPut: real.presignPut.bind(real),
    get: async (key) => (failures++ < 2 ? Promise.reject(new ObjectStoreError('down')) : real.get(key)),
  };
  const waits: number[] = [];
  await process(ctx, flaky, offline, waits).handle(event);
  const { section, result } = await outcome(ctx, reportId);
  assert.equal(waits, [500, 2000]);
  assert.equal([section.outcome, section.sectionId, result.attempt, result.periodCount, result.latestPeriodAt], ['DONE', `s1${'0'.repeat(21)}1`, 3, 1, '2024-12-31T00:00:00.000Z']);
  assert.is((section.details!.periods as Array<{ ratios: { liquidezCorrente: number } }>)[0]!.ratios.liquidezCorrente, 2.5);
  const { state: report } = await loadState(ctx.app.app.store, reportStream(reportId), reportDecider);
  assert.equal(report.financialBatches, { [event.data.batchId as string]: 'DONE' });
});

test('replayed after a crash: nothing appended twice, the registry document is the same', async (ctx) => {
  const { reportId, event } = await submitted(ctx, [ctx.pdf]);
  const store = objectStoreFor(ctx.app.app.config);
  await process(ctx, store).handle(event);
  const first = await outcome(ctx, reportId);
  await process(ctx, store).handle(event);
  assert.is((await outcome(ctx, reportId)).count, first.count);
  const documents = await ctx.app.app.store.readStream(registryDocumentStream(first.result.registryDocumentId));
  assert.equal(
    documents.map((e) => [e.type, (e.data as { expectedType: string }).expectedType]),
    [['RegistryDocumentReceived', 'DEMONSTRACOES_FINANCEIRAS']],
  );
});

test('a store down through every try: ERROR INTEGRATION_UNAVAILABLE at the last attempt, never a waiting section', async (ctx) => {
  const { reportId, event } = await submitted(ctx, [ctx.pdf]);
  const down: ObjectStore = { ...objectStoreFor(ctx.app.app.config), get: () => Promise.reject(new ObjectStoreError('down')) };
  await process(ctx, down).handle(event);
  const { section, result } = await outcome(ctx, reportId);
  assert.equal([section.outcome, section.errors[0]!.code, section.errors[0]!.message, result.attempt], ['ERROR', 'INTEGRATION_UNAVAILABLE', FinancialExtractionMessages.unavailable, 3]);
});

test('tries survive a restart: a process dying after its first try hands over attempt 2; tries spent by dead processes end in ERROR untried', async (ctx) => {
  const { reportId, event } = await submitted(ctx, [ctx.pdf]);
  const real = objectStoreFor(ctx.app.app.config);
  const down: ObjectStore = { ...real, get: () => Promise.reject(new ObjectStoreError('down')) };
  const dying = new FinancialExtractionProcess(ctx.app.app, { store: down, model: offline, sleep: () => Promise.reject(new Error('killed')) }, quiet);
  await dying.handle(event).then(
    () => assert.unreachable('the process died'),
    (error: Error) => assert.is(error.message, 'killed'),
  );
  await process(ctx, real).handle(event);
  assert.equal([(await outcome(ctx, reportId)).section.outcome, (await outcome(ctx, reportId)).result.attempt], ['DONE', 2]);

  const spent = await submitted(ctx, [ctx.pdf]);
  for (let i = 0; i < 3; i++) {
    await handleCommand(ctx.app.app.store, reportStream(spent.reportId), reportDecider, {
      type: 'BeginFinancialExtractionAttempt',
      batchId: spent.event.data.batchId as string,
      at: new Date().toISOString(),
    });
  }
  let reads = 0;
  const counting: ObjectStore = { ...real, get: (key) => (reads++, real.get(key)) };
  await process(ctx, counting).handle(spent.event);
  const { section, result } = await outcome(ctx, spent.reportId);
  assert.equal([section.outcome, section.errors[0]!.code, result.attempt, reads], ['ERROR', 'INTEGRATION_UNAVAILABLE', 3, 0]);
});

test('a file gone from the store or a PDF without statements ends at once with INTEGRATION_NO_DATA', async (ctx) => {
  const gone = await submitted(ctx, [ctx.pdf]);
  const store = objectStoreFor(ctx.app.app.config);
  await store.delete([(gone.event.data.files as SubmittedFinancialFile[])[0]!.key]);
  await process(ctx, store).handle(gone.event);
  const missing = await outcome(ctx, gone.reportId);
  assert.equal([missing.section.errors[0]!.code, missing.section.errors[0]!.message, missing.result.attempt], ['INTEGRATION_NO_DATA', FinancialExtractionMessages.fileMissing('balanco-0.pdf'), 1]);
  const letter = await submitted(ctx, [Buffer.from('%PDF-1.4 a damaged file pdf.js cannot open')]);
  await process(ctx, store).handle(letter.event);
  assert.equal((await outcome(ctx, letter.reportId)).section.errors[0]!.message, FinancialExtractionMessages.nothingRead);
});

test("the model is asked only for the core lines left, fills them, and its failure leaves the rules' reading", async (ctx) => {
  const asked: unknown[] = [];
  const model: LanguageModel = {
    async generate(request) {
      asked.push(request.input);
      const output = {
        values: [
          { periodEnd: '2024-12-31', key: 'netIncome', cents: 12_000 },
          { periodEnd: '2024-12-31', key: 'currentAssets', cents: 1 },
          { periodEnd: '1999-12-31', key: 'netIncome', cents: 1 },
        ],
      };
      return {
        output: output as never,
        call: { agent: request.agent, model: 'm1', promptVersion: request.prompt.version, inputTokens: 10, outputTokens: 5, costUsd: 0.01, durationMs: 3, attempts: 1 },
      };
    },
  };
  const filled = await submitted(ctx, [ctx.pdf]);
  await process(ctx, objectStoreFor(ctx.app.app.config), model).handle(filled.event);
  assert.equal(
    (asked[0] as { gaps: Array<{ key: string }> }).gaps.map((g) => g.key),
    ['netIncome'],
  );
  const details = (await outcome(ctx, filled.reportId)).section.details!;
  assert.equal([details.netIncomeCents, (details.model as { filled: number; model: string }).filled, (details.model as { model: string }).model], [12_000, 1, 'm1']);
  const failing = await submitted(ctx, [ctx.pdf]);
  const broken: LanguageModel = { generate: () => Promise.reject(new LanguageModelError('resposta inválida', false)) };
  await process(ctx, objectStoreFor(ctx.app.app.config), broken).handle(failing.event);
  const after = await outcome(ctx, failing.reportId);
  assert.equal([after.section.outcome, after.section.details!.netIncomeCents, (after.section.details!.model as { error: string }).error], ['DONE', null, 'resposta inválida']);
});

test.run();

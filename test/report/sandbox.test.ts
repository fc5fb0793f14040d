import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SandboxCatalog } from '../../application/report/sources/sandbox.ts';
import { ScreeningCatalog } from '../../application/report/sources/screening.ts';
import { SANDBOX_DOCUMENTS } from '../../application/report/sources/sandbox-documents.ts';
import { runSource } from '../../application/report/sources/run-source.ts';
import { reportDecider } from '../../domain/report/decider.ts';
import type { ReportEvent } from '../../domain/report/events.ts';
import { fold } from '../../domain/shared/decider.ts';
import type { TaxDocument } from '../../domain/shared/document.ts';
import { cnpjPolicy, cpfPolicy, testIds } from '../support/report.ts';
import { listsWithoutEntries } from '../support/screening.ts';

const test = suite('sandbox sources');
// As the service runs it: SANCTIONS from the screening lists (here loaded, none naming anyone).
const catalog = new ScreeningCatalog(new SandboxCatalog(), listsWithoutEntries());
const NOW = new Date('2026-03-01T12:00:00Z');

async function outcomeOf(document: TaxDocument, timeoutMs = 50) {
  const policy = document.type === 'cpf' ? cpfPolicy() : cnpjPolicy();
  const requested = reportDecider.decide(
    {
      type: 'RequestReport',
      reportId: 'rep000000000000000000001',
      organizationId: 'org000000000000000000001',
      userId: 'usr000000000000000000001',
      document,
      externalId: null,
      policy,
      scrEnabled: true,
      sectionIds: testIds('sec', 14),
      inputs: {},
      at: NOW.toISOString(),
    },
    reportDecider.initialState(),
  );
  const query = { reportId: 'r', organizationId: 'o', document, now: NOW };
  const results = await Promise.all(policy.sections.map((type) => runSource(catalog.providerFor(type, document), query, timeoutMs, () => NOW)));
  const state = fold(reportDecider, requested);
  const events: ReportEvent[] = reportDecider.decide({ type: 'RecordSectionResults', results, policy, at: NOW.toISOString() }, state);
  return { results, decided: events.find((e) => e.type === 'ReportDecided')!.data as { decision: string } };
}

test('every test document gives its documented outcome under the demo policy of its type', async () => {
  for (const doc of SANDBOX_DOCUMENTS) {
    const { results, decided } = await outcomeOf({ type: doc.type, digits: doc.document });
    assert.is(decided.decision, doc.expectedPolicyStatus, `${doc.document} (${doc.behaviour})`);
    const codes = results.flatMap((r) => r.errors.map((e) => `${r.sectionType}:${e.code}`));
    const expected: Record<string, (c: string[]) => boolean> = {
      APPROVE: (c) => c.length === 0,
      DENY: (c) => c.length === 0,
      MANUAL_ANALYSIS: (c) => c.length === 0,
      TIMEOUT: (c) => c.join() === 'PROTESTS:INTEGRATION_TIMEOUT',
      UNAVAILABLE: (c) => c.join() === 'PROTESTS:INTEGRATION_UNAVAILABLE',
      NO_DATA: (c) => c.sort().join() === 'BASIC_INFORMATION:INTEGRATION_NO_DATA,LOCATION:INTEGRATION_NO_DATA',
      INVALID_DOCUMENT: (c) => c.length === results.length && c.every((x) => x.endsWith('INTEGRATION_INVALID_DOCUMENT')),
    };
    assert.ok(expected[doc.behaviour]!(codes), `${doc.document}: ${codes.join()}`);
  }
});

test('the same document always gets the same data', async () => {
  const provider = catalog.providerFor('BASIC_INFORMATION', { type: 'cnpj', digits: '11222333000181' });
  const ask = () => provider.query({ reportId: 'r', organizationId: 'o', document: { type: 'cnpj', digits: '11222333000181' }, now: NOW, signal: new AbortController().signal });
  assert.equal(await ask(), await ask());
  const other = await catalog.providerFor('BASIC_INFORMATION', { type: 'cnpj', digits: '10000001000190' }).query({
    reportId: 'r',
    organizationId: 'o',
    document: { type: 'cnpj', digits: '10000001000190' },
    now: NOW,
    signal: new AbortController().signal,
  });
  assert.is.not((await ask()).name, undefined);
  assert.ok(typeof other.name === 'string');
});

test('errors carry integration id, type, Portuguese message, code and time', async () => {
  const document: TaxDocument = { type: 'cpf', digits: '10000000442' };
  const result = await runSource(catalog.providerFor('PROTESTS', document), { reportId: 'r', organizationId: 'o', document, now: NOW }, 50, () => NOW);
  assert.equal(result.errors, [
    { integrationId: 'sandbox-protests', integrationType: 'SANDBOX', message: 'A fonte está indisponível no momento.', code: 'INTEGRATION_UNAVAILABLE', occurredAt: NOW.toISOString() },
  ]);
  assert.is(result.outcome, 'ERROR');
  assert.is(result.integrationCount, 0);
});

test('a source that ignores the abort signal is still cut off at the deadline', async () => {
  const stuck = { sectionType: 'PEFIN' as const, integrationId: 'x', integrationType: 'X', sandbox: false, query: () => new Promise<never>(() => undefined) };
  const started = Date.now();
  const result = await runSource(stuck, { reportId: 'r', organizationId: 'o', document: { type: 'cpf', digits: '12345678909' }, now: NOW }, 30, () => NOW);
  assert.is(result.errors[0]!.code, 'INTEGRATION_TIMEOUT');
  assert.ok(Date.now() - started < 1000);
});

test.run();

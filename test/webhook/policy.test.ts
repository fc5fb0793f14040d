import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventCatalog } from '../../domain/webhook/catalog.ts';
import { nextStep, type AttemptOutcome } from '../../domain/webhook/retry-policy.ts';
import { fillNamedBody, namedBody, namedBodyTemplate, routeEvent, targetWants } from '../../domain/webhook/routing.ts';
import { seededProperties } from '../support/seed.ts';

const delays = [5000, 30000, 120000];
const outcome = (failure: AttemptOutcome['failure'], statusCode: number | null = null): AttemptOutcome => ({
  ok: failure === null,
  statusCode,
  failure,
  error: failure,
  durationMs: 1,
});

const test = suite('webhook retry policy, routing and catalog');
seededProperties(test, 'webhook/policy');

test('legacy retries network errors, timeouts, 5xx, 408, 425 and 429 only, up to 3 times', () => {
  for (const o of [outcome('network'), outcome('timeout'), outcome('http', 500), outcome('http', 503), outcome('http', 408), outcome('http', 425), outcome('http', 429)]) {
    assert.equal(nextStep('legacy', 1, o, delays), { kind: 'retry', delayMs: 5000 }, JSON.stringify(o));
    assert.equal(nextStep('legacy', 3, o, delays), { kind: 'retry', delayMs: 120000 });
    assert.equal(nextStep('legacy', 4, o, delays), { kind: 'failed' });
  }
  for (const o of [outcome('http', 400), outcome('http', 404), outcome('redirect', 302), outcome('refused')]) {
    assert.equal(nextStep('legacy', 1, o, delays), { kind: 'failed' }, JSON.stringify(o));
  }
});

test('named retries any failure, 3xx included: the initial attempt plus 3 after 5 s, 30 s, 120 s', () => {
  for (const o of [outcome('http', 400), outcome('redirect', 301), outcome('refused'), outcome('timeout')]) {
    assert.equal(nextStep('named', 1, o, delays), { kind: 'retry', delayMs: 5000 });
    assert.equal(nextStep('named', 2, o, delays), { kind: 'retry', delayMs: 30000 });
    assert.equal(nextStep('named', 3, o, delays), { kind: 'retry', delayMs: 120000 });
    assert.equal(nextStep('named', 4, o, delays), { kind: 'failed' });
  }
  assert.equal(nextStep('named', 1, outcome(null, 204), delays), { kind: 'succeeded' });
});

test('report events map to their legacy types and public names', () => {
  const facts = { reportId: 'r', organizationId: 'o', reportCreatedAt: '2026-01-01T00:00:00.000Z' };
  const cases: Array<[string, string, string]> = [
    ['ReportSectionUpdated', 'REPORT', 'report.section.updated'],
    ['ReportSourcesFinished', 'REPORT_FINISHED', 'report.finished'],
    ['ReportDecided', 'REPORT_STATUS', 'report.status.changed'],
    ['CreditPolicyEvaluated', 'CREDIT_POLICY', 'credit-policy.evaluated'],
    ['ReportExported', 'REPORT_EXPORTED', 'report.exported'],
    ['ReportExportFailed', 'REPORT_EXPORTED', 'report.exported'],
  ];
  for (const [stored, legacy, name] of cases) {
    const routed = routeEvent(stored, facts)!;
    assert.is(routed.legacyType, legacy);
    assert.is(routed.publicName, name);
  }
  assert.is(routeEvent('ReportRequested', facts), null);
});

test('REPORT, REPORT_FINISHED and COMMITTEE_FINISHED go only for reports created after the subscription', () => {
  const target = { family: 'legacy' as const, legacyType: 'REPORT' as const, events: [], createdAt: '2026-01-01T12:00:00.000Z' };
  const older = routeEvent('ReportSectionUpdated', { reportCreatedAt: '2026-01-01T11:59:59.999Z' })!;
  const newer = routeEvent('ReportSectionUpdated', { reportCreatedAt: '2026-01-01T12:00:00.001Z' })!;
  assert.is(targetWants(target, older), false);
  assert.is(targetWants(target, newer), true);
  const status = { ...target, legacyType: 'REPORT_STATUS' as const };
  assert.is(targetWants(status, routeEvent('ReportDecided', { reportCreatedAt: '2020-01-01T00:00:00.000Z' })!), true);
  assert.is(targetWants({ family: 'named', legacyType: null, events: ['report.finished'], createdAt: target.createdAt }, routeEvent('ReportSourcesFinished', {})!), true);
});

test("the catalog: five groups, the spec's 29 named events and collection.consent.revoked after the report and credit events, Portuguese labels", () => {
  const catalog = eventCatalog();
  assert.equal(
    catalog.groups.map((g) => g.title),
    ['Relatórios e crédito', 'Documento', 'Cadastro', 'Solicitação', 'Mensagens'],
  );
  const named = catalog.groups.slice(1).flatMap((g) => g.events);
  // The spec counts 29, ping included; collection.consent.revoked is ours (consent is revocable, docs/webhooks.md).
  assert.is(named.filter((name) => name !== 'collection.consent.revoked').length + 1, 29, 'the spec counts 29 named events, ping included');
  assert.ok(named.includes('collection.consent.revoked'));
  assert.equal(
    catalog.events,
    catalog.groups.flatMap((g) => g.events),
  );
  assert.is(catalog.events[0], 'report.section.updated');
  assert.not.ok(catalog.events.includes('ping'));
  assert.equal(Object.keys(catalog.eventLabels), catalog.groups[0]!.events);
  assert.is(catalog.eventLabels['report.finished'], 'Relatório finalizado');
});

test('a named body filled in per delivery is byte for byte the whole envelope serialized', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), fc.string(), fc.string(), fc.dictionary(fc.string(), fc.jsonValue()), (id, event, occurredAt, organizationId, data) => {
      const whole = JSON.stringify({ id, event, occurredAt, organizationId, data });
      assert.is(fillNamedBody(namedBodyTemplate({ event, occurredAt, organizationId, data }), id), whole);
      assert.is(namedBody({ id, event, occurredAt, organizationId, data }), whole);
    }),
  );
});

test.run();

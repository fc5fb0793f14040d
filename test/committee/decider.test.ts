import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { alcadaLevelFor, riskLevelOf, withinCommitteeAuthority } from '../../domain/committee/authority.ts';
import { deliberationDecider } from '../../domain/committee/decider.ts';
import type { DeliberationEvent } from '../../domain/committee/events.ts';
import { missingSpecialists, SPECIALISTS } from '../../domain/committee/state.ts';
import { fold } from '../../domain/shared/decider.ts';
import { given } from '../support/decider.ts';
import { AT, chair, deliberated, facts, LATER, opinion, recordOpinion, settings, start, usage } from '../support/committee.ts';

const test = suite('deliberation decider');
const all = deliberated;
const finished = (events: DeliberationEvent[]) => {
  const [event] = events;
  assert.is(event?.type, 'DeliberationFinished');
  return (event as Extract<DeliberationEvent, { type: 'DeliberationFinished' }>).data;
};
const finishCommand = (patch = {}) => ({ type: 'FinishDeliberation' as const, chair: chair(patch), usage: usage('chair-model'), at: LATER });

test('each trigger starts a RUNNING deliberation that carries its facts, prompts and settings', () => {
  for (const trigger of ['AUTO_SUGGEST', 'AUTO_DECIDE', 'MANUAL', 'RERUN'] as const) {
    const [event] = given(deliberationDecider)
      .when(start({ facts: { ...facts, trigger } }))
      .decided();
    assert.is(event!.type, 'DeliberationStarted');
    assert.is(event!.data.trigger, trigger);
    assert.is(event!.data.organizationId, facts.organizationId);
    assert.equal((event as Extract<DeliberationEvent, { type: 'DeliberationStarted' }>).data.settings, settings);
    assert.is(fold(deliberationDecider, [event!]).status, 'RUNNING');
  }
});

test('a repeated start and a repeated opinion append nothing (the runner replays after a crash)', () => {
  const [started] = given(deliberationDecider).when(start()).decided();
  given(deliberationDecider, [started!]).when(start()).then([]);
  const [opinionEvent] = given(deliberationDecider, [started!]).when(recordOpinion('cadastral')).decided();
  given(deliberationDecider, [started!, opinionEvent!])
    .when(recordOpinion('cadastral', 2, 'REJECT'))
    .then([]);
  assert.equal(missingSpecialists(fold(deliberationDecider, [started!, opinionEvent!])), SPECIALISTS.slice(1));
});

test('finish computes totals, duration, models, risk and alçada; inside committeeMaxLevel the decision stands', () => {
  const data = finished(given(deliberationDecider, all()).when(finishCommand()).decided());
  assert.is(data.finalRecommendation, 'APPROVED');
  assert.is(data.riskLevel, 'LOW');
  assert.is(data.amountCents, 2_000_000);
  assert.is(data.synthesis.alcadaLevel, 'N1');
  assert.equal(data.synthesis.dissentLog, []);
  assert.equal(data.totals, { inputTokens: 800, outputTokens: 400, costUsd: 0.008, webSearchRequests: 2 });
  assert.equal(data.modelVersions, { specialists: 'offline-rules', chair: 'chair-model' });
  assert.is(data.durationMs, 1500);
});

test('an amount or a risk beyond the committee needs a higher alçada: REQUIRES_ALCADA', () => {
  const big = finished(
    given(deliberationDecider, all({}, { requestedAmountCents: 40_000_000 }))
      .when(finishCommand())
      .decided(),
  );
  assert.is(big.synthesis.alcadaLevel, 'N2');
  assert.is(big.finalRecommendation, 'REQUIRES_ALCADA');
  const risky = finished(
    given(deliberationDecider, all(Object.fromEntries(SPECIALISTS.map((a) => [a, [4, 'APPROVE_WITH_RESTRICTION']]))))
      .when(finishCommand())
      .decided(),
  );
  assert.is(risky.riskLevel, 'HIGH');
  assert.is(risky.synthesis.alcadaLevel, 'N2');
  assert.is(risky.finalRecommendation, 'REQUIRES_ALCADA');
  const beyond = finished(
    given(deliberationDecider, all({}, { requestedAmountCents: 900_000_000 }))
      .when(finishCommand())
      .decided(),
  );
  assert.is(beyond.synthesis.alcadaLevel, null);
  assert.is(beyond.finalRecommendation, 'REQUIRES_ALCADA');
});

test('a CRITICAL red flag turns an APPROVED chair into REQUIRES_ALCADA in code, even where the table would let the committee decide', () => {
  const settingsCoveringCritical = { ...settings, alcadas: [{ level: 'N1', maxAmountCents: 500_000_000, maxRiskLevel: 'CRITICAL' as const }], committeeMaxLevel: 'N1' };
  const events = deliberated({}, { settings: settingsCoveringCritical });
  const critical = { ...opinion('compliance', 8, 'APPROVE'), redFlags: [{ severity: 'CRITICAL' as const, label: 'Sanções', detail: 'Registro em lista de sanções.' }] };
  const flagged = events.map((e) => (e.type === 'AgentOpinionRecorded' && e.data.opinion.agent === 'compliance' ? { ...e, data: { ...e.data, opinion: critical } } : e));
  const data = finished(given(deliberationDecider, flagged).when(finishCommand()).decided());
  assert.is(data.riskLevel, 'CRITICAL');
  assert.is(data.synthesis.alcadaLevel, 'N1', 'the table alone would let the committee decide');
  assert.is(data.finalRecommendation, 'REQUIRES_ALCADA');
  const rejected = finished(
    given(deliberationDecider, flagged)
      .when(finishCommand({ decision: 'REJECTED' }))
      .decided(),
  );
  assert.is(rejected.finalRecommendation, 'REJECTED', 'a rejection stands');
});

test('without a requested amount the alçada reads the limit the chair reviewed; NEEDS_INFO is never escalated', () => {
  const data = finished(
    given(deliberationDecider, all({}, { requestedAmountCents: null }))
      .when(finishCommand({ limitReview: { ...chair().limitReview, limite: 100_000 } }))
      .decided(),
  );
  assert.is(data.amountCents, 10_000_000);
  assert.is(data.synthesis.alcadaLevel, 'N2');
  const info = finished(
    given(deliberationDecider, all({}, { requestedAmountCents: 900_000_000 }))
      .when(finishCommand({ decision: 'NEEDS_INFO' }))
      .decided(),
  );
  assert.is(info.finalRecommendation, 'NEEDS_INFO');
});

test('the dissent log lists every specialist whose vote points elsewhere than the final decision', () => {
  const data = finished(
    given(deliberationDecider, all({ juridico: [3, 'REJECT'], compliance: [5, 'NEEDS_INFO'], financeiro: [6, 'APPROVE_WITH_RESTRICTION'] }))
      .when(finishCommand())
      .decided(),
  );
  assert.equal(
    data.synthesis.dissentLog.map((d) => d.agent),
    ['juridico', 'compliance'],
  );
  assert.is(data.synthesis.dissentLog[0]!.divergedHow, 'Jurídico recomendou reprovação (nota 3/10); o comitê decidiu aprovar.');
  const rejected = finished(
    given(deliberationDecider, all({ juridico: [3, 'REJECT'] }))
      .when(finishCommand({ decision: 'REJECTED' }))
      .decided(),
  );
  assert.is(rejected.synthesis.dissentLog.length, 6);
});

test('a CRITICAL red flag makes the case CRITICAL whatever the scores', () => {
  const flagged = { ...opinion('compliance', 9), redFlags: [{ severity: 'CRITICAL' as const, label: 'Sanção', detail: 'Lista de sanções.' }] };
  assert.is(riskLevelOf([opinion('cadastral', 9), flagged]), 'CRITICAL');
  assert.is(alcadaLevelFor(settings.alcadas, 100, 'CRITICAL'), 'DIRETORIA');
  assert.is(withinCommitteeAuthority({ ...settings, committeeMaxLevel: null }, 'N1'), false);
  assert.is(withinCommitteeAuthority({ ...settings, committeeMaxLevel: 'N2' }, 'N1'), true);
  assert.is(withinCommitteeAuthority({ alcadas: [], committeeMaxLevel: 'N1' }, null), false);
});

test('a deliberation fails once, with its error and duration; after DONE or ERROR nothing more is appended', () => {
  const started = all().slice(0, 1);
  const [failed] = given(deliberationDecider, started).when({ type: 'FailDeliberation', error: 'modelo indisponível', at: LATER }).decided();
  assert.equal(failed, { type: 'DeliberationFailed', data: { ...facts, error: 'modelo indisponível', durationMs: 1500, failedAt: LATER } });
  const errored = [...started, failed!];
  assert.is(fold(deliberationDecider, errored).status, 'ERROR');
  given(deliberationDecider, errored).when({ type: 'FailDeliberation', error: 'de novo', at: LATER }).then([]);
  given(deliberationDecider, errored).when(recordOpinion('cadastral')).then([]);
  const done = [...all(), ...given(deliberationDecider, all()).when(finishCommand()).decided()];
  given(deliberationDecider, done).when(finishCommand()).then([]);
  given(deliberationDecider, done).when({ type: 'FailDeliberation', error: 'tarde', at: LATER }).then([]);
});

test('finishing before every specialist spoke is a bug, not a result', () => {
  const partial = all().slice(0, 3);
  assert.throws(() => deliberationDecider.decide(finishCommand(), fold(deliberationDecider, partial)), /before every specialist/);
  given(deliberationDecider)
    .when({ type: 'RecordAgentOpinion', opinion: opinion('cadastral'), usage: usage(), webSearchRequests: 0, at: AT })
    .then([]);
});

test.run();

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../application/command-handler.ts';
import { convene } from '../../application/committee/commands.ts';
import { processCheckpoint } from '../../application/event-follower.ts';
import { deliberationDecider } from '../../domain/committee/decider.ts';
import { deliberationStream } from '../../domain/committee/events.ts';
import { PostgresEventStore } from '../../platform/eventstore/postgres.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { startCommitteeChatServer, type CommitteeChatServer } from '../support/committee-chat-server.ts';
import { committeePolicy, opinion, reportUnder, usage } from '../support/committee.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';

/**
 * A deliberation interrupted by a restart resumes (the runner's checkpoint stayed before its
 * start) or ends ERROR (the runner had passed it): never RUNNING forever. The first process
 * writes reports; what a dying process left is appended between the two; the second process,
 * on the same database, finishes the work.
 */
const test = suite('committee deliberations survive restarts');
let database: TestDatabase;
let dataDir: string;
let chat: CommitteeChatServer;
let app: TestApp | undefined;
let tenant: TestTenant;

test.before(async () => {
  database = await createTestDatabase({ migrate: false });
  dataDir = mkdtempSync(join(tmpdir(), 'credit-committee-restart-'));
  chat = await startCommitteeChatServer();
});
test.after(async () => {
  await app?.stop();
  await chat.close();
  await database.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('half a deliberation is resumed with the missing specialists only; one the runner gave up on ends ERROR', async () => {
  const first = await startTestApp({}, { database, dataDir });
  tenant = await provisionTenant(first);
  const resumedReport = await reportUnder(first, tenant.token, committeePolicy('OFF'));
  const orphanReport = await reportUnder(first, tenant.token, committeePolicy('OFF'));
  await first.stop();

  const store = new PostgresEventStore(database.knex, { pollIntervalMs: 10 });
  const clock = { now: () => new Date() };
  const request = (reportId: string, deliberationId: string) => ({ deliberationId, organizationId: tenant.organizationId, reportId, trigger: 'MANUAL' as const, userId: tenant.userId });
  // Given up on: its start is behind the runner's checkpoint.
  const orphanId = 'dead00000000000000000001';
  const orphan = await convene({ store, clock }, request(orphanReport, orphanId));
  await database
    .knex('projection_checkpoints')
    .insert({ name: processCheckpoint('committee-deliberations'), commit_position: String(orphan.position!.commit), prepare_position: String(orphan.position!.prepare) })
    .onConflict('name')
    .merge();
  // Interrupted: started, three specialists heard.
  const resumedId = 'dead00000000000000000002';
  await convene({ store, clock }, request(resumedReport, resumedId));
  for (const agent of ['cadastral', 'financeiro', 'compliance'] as const) {
    const heard = { ...opinion(agent, 9), resumo: 'Ouvido antes da queda.' };
    await handleCommand(store, deliberationStream(resumedId), deliberationDecider, { type: 'RecordAgentOpinion', opinion: heard, usage: usage(), webSearchRequests: 0, at: new Date().toISOString() });
  }
  await store.close();

  app = await startTestApp({ LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: chat.url, LLM_MODEL: 'restart-model', COMMITTEE_SWEEP_MS: '100' }, { database, dataDir });
  const resumed = await eventually(
    async () => {
      const reply = await app!.call('GET', `/committee/deliberations/${resumedReport}`, { token: tenant.token });
      return reply.body.status === 'DONE' && reply.body;
    },
    { timeoutMs: 20_000, what: 'the resumed deliberation' },
  );
  assert.is(resumed.id, resumedId);
  assert.is(chat.calls, 5, 'four specialists and the chair');
  const byAgent = Object.fromEntries(resumed.agentOpinions.map((o: any) => [o.agent, o]));
  assert.equal(resumed.agentOpinions.length, 7);
  for (const agent of ['cadastral', 'financeiro', 'compliance']) assert.is(byAgent[agent].resumo, 'Ouvido antes da queda.');
  for (const agent of ['societario', 'comportamental', 'juridico', 'macro_setorial']) assert.is(byAgent[agent].model, 'restart-model');

  const failed = await eventually(
    async () => {
      const reply = await app!.call('GET', `/committee/deliberations/${orphanReport}`, { token: tenant.token });
      return reply.body.status === 'ERROR' && reply.body;
    },
    { timeoutMs: 20_000, what: 'the orphaned deliberation' },
  );
  assert.is(failed.id, orphanId);
  assert.is(failed.error, 'A deliberação do comitê foi interrompida e não pôde ser retomada.');
  assert.is(chat.calls, 5, 'nothing asked for the orphan');
});

test.run();

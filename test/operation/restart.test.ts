import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EXECUTION_CHECKPOINT } from '../../application/operation/worker.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { seedProduct } from '../support/catalog.ts';
import { createTestDatabase, type TestDatabase } from '../support/db.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { pipelineBody, scorePolicy } from './fixtures.ts';
import { newProposal, waitForExecution } from './journey.ts';

const test = suite('the execution process manager across a restart');
let database: TestDatabase;
/** The secrets a restart keeps (token signing keys among them): the same DATA_DIR. */
let dataDir: string;
let app: TestApp | undefined;
let tenant: TestTenant;

test.before(async () => {
  database = await createTestDatabase({ migrate: false });
  dataDir = mkdtempSync(join(tmpdir(), 'credit-restart-'));
  app = await startTestApp({}, { database, dataDir });
  tenant = await provisionTenant(app);
  await seedProduct(app, tenant.organizationId);
});
test.after(async () => {
  await app?.stop();
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => app!.call(method, path, { token: tenant.token, body });

test('an execution in progress when the service stops finishes after it starts again over the same database', async () => {
  const policy = (await call('POST', '/credit-policy/policy', scorePolicy(800))).body.id;
  const operationId = (await call('POST', '/v1/operations', pipelineBody(policy))).body.id;
  const proposalId = await newProposal(app!, tenant);
  const id = (await call('POST', `/v1/proposals/${proposalId}/run`, { kind: 'OPERATION', targetId: operationId })).body.operationResultId;
  const waiting = await waitForExecution(app!, tenant.token, id, (e) => e.status === 'WAITING_CUSTOMER');
  const chosen = await call('POST', `/v1/proposals/${proposalId}/offers/${waiting.indicativeOfferId}/choose`, { amountCents: 800_000, termMonths: 12 });
  assert.is(chosen.status, 200, JSON.stringify(chosen.body));
  // Stopped at once: the choice is written, the final approval and the firm offer are still to come.
  await app!.stop();
  app = undefined;
  const atStop: string[] = await database
    .knex('events')
    .where({ stream_name: `execution-${id}` })
    .orderBy('global_position')
    .pluck('event_type');
  assert.not.ok(atStop.includes('ExecutionFinished'), 'in progress when stopped');
  // A crash that lost the checkpoint too: the next process replays every event from the start.
  await database.knex('projection_checkpoints').where({ name: EXECUTION_CHECKPOINT }).update({ commit_position: '0', prepare_position: '0' });

  app = await startTestApp({}, { database, dataDir });
  const done = await waitForExecution(app, tenant.token, id, (e) => e.status === 'WAITING_CLOSING');
  assert.equal(done.chosen, { offerId: waiting.indicativeOfferId, amountCents: 800_000, termMonths: 12 });
  const closed = await call('POST', '/operation/close', { operationResultId: id, status: 'ISSUED', date: '2026-11-30' });
  assert.is(closed.status, 200, JSON.stringify(closed.body));
  await waitForExecution(app, tenant.token, id, (e) => e.status === 'ISSUED');

  // The replay did every step once: one report, one indicative offer, one firm offer.
  const types = (await app.app.store.readStream(`execution-${id}`)).map((e) => e.type);
  for (const type of ['ExecutionReportRequested', 'ExecutionOfferSent', 'ExecutionOfferChosen', 'ExecutionFirmOfferIssued', 'ExecutionFinished']) {
    assert.is(types.filter((t) => t === type).length, 1, type);
  }
  const offers = (await call('GET', `/v1/proposals/${proposalId}`)).body.rounds.flatMap((r: any) => r.offers.map((o: any) => o.kind));
  assert.equal(offers, ['INDICATIVE', 'FIRM']);
  assert.is((await call('GET', `/v1/proposals/${proposalId}`)).body.status, 'ISSUED');
});

test.run();

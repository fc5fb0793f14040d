import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CommitteeMessages } from '../../domain/committee/messages.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { startCommitteeChatServer, type CommitteeChatServer } from '../support/committee-chat-server.ts';
import { committeePolicy, finishedDeliberation, reportUnder } from '../support/committee.ts';
import { provisionTenant, type TestTenant } from '../support/identity.ts';
import { eventually } from '../support/wait.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/** The committee through the OpenAI-compatible adapter against real chat servers on 127.0.0.1. */
const test = suite('committee with a remote model: 409 while RUNNING, ERROR on invalid replies');
let receiver: Receiver;
const opened: Array<{ app: TestApp; chat: CommitteeChatServer }> = [];

async function serviceWith(chat: CommitteeChatServer): Promise<{ app: TestApp; tenant: TestTenant }> {
  const app = await startTestApp({ LLM_PROVIDER: 'openai-compatible', LLM_BASE_URL: chat.url, LLM_MODEL: 'test-model', LLM_MAX_ATTEMPTS: '2', LLM_RETRY_BASE_MS: '0' });
  opened.push({ app, chat });
  const tenant = await provisionTenant(app);
  const subscribed = await app.call('POST', '/webhook', { token: tenant.token, body: { type: 'COMMITTEE_FINISHED', url: `${receiver.url}/committee` } });
  assert.is(subscribed.status, 200, JSON.stringify(subscribed.body));
  return { app, tenant };
}

test.before(async () => {
  receiver = await startReceiver();
});
test.after(async () => {
  for (const { app, chat } of opened) {
    chat.release();
    await app.stop();
    await chat.close();
  }
  await receiver.close();
});

test('a second convocation while one is RUNNING is refused with 409; released, it finishes DONE with the remote model', async () => {
  const chat = await startCommitteeChatServer({ hold: true });
  const { app, tenant } = await serviceWith(chat);
  const reportId = await reportUnder(app, tenant.token, committeePolicy('OFF'));
  const started = await app.call('POST', `/report/${reportId}/committee`, { token: tenant.token });
  assert.is(started.status, 202);
  assert.is(started.body.status, 'RUNNING');
  assert.equal(started.body.agentOpinions, []);
  const again = await app.call('POST', `/report/${reportId}/committee`, { token: tenant.token });
  assert.is(again.status, 409);
  assert.is(again.body.message, CommitteeMessages.alreadyRunning);
  const running = await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token });
  assert.is(running.body.committeeStatus, 'RUNNING');
  chat.release();
  const done = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(done.status, 'DONE');
  assert.is(done.id, started.body.id);
  assert.equal(done.modelVersions, { specialists: 'test-model', chair: 'test-model' });
  assert.ok(done.agentOpinions.every((o: { model: string }) => o.model === 'test-model'));
  assert.is(done.totalInputTokens, 8 * 1200);
  assert.is(done.totalOutputTokens, 8 * 300);
});

test('two convocations at the same moment: one starts, the other is refused with 409', async () => {
  const chat = await startCommitteeChatServer({ hold: true });
  const { app, tenant } = await serviceWith(chat);
  const reportId = await reportUnder(app, tenant.token, committeePolicy('OFF'));
  const replies = await Promise.all([1, 2, 3].map(() => app.call('POST', `/report/${reportId}/committee`, { token: tenant.token })));
  assert.equal(replies.map((r) => r.status).sort(), [202, 409, 409]);
  assert.ok(replies.filter((r) => r.status === 409).every((r) => r.body.message === CommitteeMessages.alreadyRunning));
  const started = await app.app.db('committee_deliberations').where({ report_id: reportId }).count<{ count: string }[]>('* as count');
  assert.is(Number(started[0]!.count), 1, 'one deliberation started');
  chat.release();
  await finishedDeliberation(app, tenant.token, reportId);
});

test('a model that keeps answering invalid JSON ends the deliberation ERROR and COMMITTEE_FINISHED says so', async () => {
  const chat = await startCommitteeChatServer({ content: 'isto não é JSON' });
  const { app, tenant } = await serviceWith(chat);
  const reportId = await reportUnder(app, tenant.token, committeePolicy('AUTO_DECIDE'));
  const failed = await finishedDeliberation(app, tenant.token, reportId);
  assert.is(failed.status, 'ERROR');
  assert.match(failed.error, /^A deliberação do comitê falhou/);
  assert.is(failed.synthesis, null);
  assert.is(failed.finalRecommendation, null);
  const report = await app.call('GET', `/v2/report/${reportId}`, { token: tenant.token });
  assert.is(report.body.committeeStatus, 'ERROR');
  assert.is(report.body.status.value, 'APPROVED', 'the policy decision stands');
  const [delivery] = await eventually(
    async () => {
      const mine = receiver.received.filter((r) => r.body.includes(failed.id));
      return mine.length > 0 && mine;
    },
    { timeoutMs: 15_000, what: 'COMMITTEE_FINISHED for the failure' },
  );
  const envelope = JSON.parse(delivery!.body);
  assert.is(envelope.webhookType, 'COMMITTEE_FINISHED');
  assert.is(envelope.data.status, 'ERROR');
  assert.is(envelope.data.decision, null);
  assert.is(envelope.data.error, failed.error);
});

test.run();

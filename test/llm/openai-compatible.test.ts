import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Type from 'typebox';
import { loadConfig } from '../../config/index.ts';
import { languageModelFor } from '../../application/llm/models.ts';
import { LanguageModelError, type StructuredRequest } from '../../application/llm/port.ts';
import { json, startChatServer, type ChatServer } from '../support/chat-server.ts';

const test = suite('llm: OpenAI-compatible adapter against a chat completions server on 127.0.0.1');

const Opinion = Type.Object({
  parecer: Type.String({ minLength: 1 }),
  score: Type.Number({ minimum: 0, maximum: 10 }),
  riskLevel: Type.Union([Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH'), Type.Literal('CRITICAL')]),
});
const request: StructuredRequest<typeof Opinion> = {
  agent: 'parecer',
  prompt: { version: 'v1', text: 'Escreva o parecer da seção.' },
  input: { sectionType: 'PROTESTS', data: { protestsQuantity: 2 } },
  schema: Opinion,
  offline: () => ({ parecer: 'offline', score: 5, riskLevel: 'MEDIUM' }),
};
const valid = { parecer: 'Dois protestos recentes.', score: 4.5, riskLevel: 'HIGH' };

let server: ChatServer;
const model = (env: Record<string, string> = {}) =>
  languageModelFor(
    loadConfig({
      LLM_PROVIDER: 'openai-compatible',
      LLM_BASE_URL: server.baseUrl,
      LLM_MODEL: 'gpt-4o-mini',
      LLM_API_KEY: 'sk-test',
      LLM_RETRY_BASE_MS: '0',
      LLM_PRICES: 'test-1;gpt-4o-mini=0.15/0.6',
      ...env,
    }),
  );

async function failure(run: Promise<unknown>): Promise<LanguageModelError> {
  try {
    await run;
  } catch (error) {
    assert.instance(error, LanguageModelError);
    return error as LanguageModelError;
  }
  return assert.unreachable('expected a LanguageModelError') as never;
}

test.before(async () => {
  server = await startChatServer();
});
test.after(async () => {
  await server.close();
});

test('a valid reply: the output, the call record (tokens, cost from the price table, one attempt), the schema sent as response_format', async () => {
  server.script({ ...json(valid), promptTokens: 1000, completionTokens: 200 });
  const { output, call } = await model().generate(request);
  assert.equal(output, valid);
  assert.equal({ ...call, durationMs: 0 }, { agent: 'parecer', model: 'gpt-4o-mini', promptVersion: 'v1', inputTokens: 1000, outputTokens: 200, costUsd: 0.00027, durationMs: 0, attempts: 1 });
  const sent = server.requests[0]!;
  assert.is(sent.headers.authorization, 'Bearer sk-test');
  assert.is(sent.body.model, 'gpt-4o-mini');
  assert.is(sent.body.response_format.type, 'json_schema');
  assert.equal(sent.body.response_format.json_schema.schema.required, ['parecer', 'score', 'riskLevel']);
  assert.ok(sent.body.messages[0].content.startsWith('Escreva o parecer da seção.'));
  assert.equal(JSON.parse(sent.body.messages[1].content), request.input);
});

test('invalid JSON, then a valid reply: retried at once, both attempts paid for', async () => {
  server.script({ kind: 'content', content: 'Claro! Aqui está: {parecer:' }, json(valid));
  const { output, call } = await model().generate(request);
  assert.equal(output, valid);
  assert.is(call.attempts, 2);
  assert.is(call.inputTokens, 200);
  assert.is(server.requests.length, 2);
});

test('replies outside the schema until the attempts run out: LanguageModelError, not retryable, with the cost of every attempt', async () => {
  server.script(json({ parecer: 'ok', score: 14, riskLevel: 'LOW' }));
  const error = await failure(model({ LLM_MAX_ATTEMPTS: '3' }).generate(request));
  assert.is(error.retryable, false);
  assert.match(error.message, /no valid reply after 3 attempts/);
  assert.is(error.call?.attempts, 3);
  assert.is(error.call?.inputTokens, 300);
  assert.is(server.requests.length, 3);
});

test('a server that does not answer in LLM_TIMEOUT_MS: the attempt is abandoned and the next one answers', async () => {
  server.script({ kind: 'hang' }, json(valid));
  const { output, call } = await model({ LLM_TIMEOUT_MS: '500' }).generate(request);
  assert.equal(output, valid);
  assert.is(call.attempts, 2);
  assert.ok(call.durationMs >= 500);
});

test('timeouts on every attempt: LanguageModelError, retryable (the server may come back)', async () => {
  server.script({ kind: 'hang' });
  const error = await failure(model({ LLM_TIMEOUT_MS: '300', LLM_MAX_ATTEMPTS: '2' }).generate(request));
  assert.is(error.retryable, true);
  assert.match(error.message, /timeout/);
});

test('429 with Retry-After: the adapter waits what the server asked, then succeeds', async () => {
  server.script({ kind: 'status', status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'Rate limit reached' } } }, json(valid));
  const { output, call } = await model().generate(request);
  assert.equal(output, valid);
  assert.is(call.attempts, 2);
  const [first, second] = server.requests;
  assert.ok(second!.at - first!.at >= 950, `waited ${second!.at - first!.at} ms`);
});

test('a 5xx is retried; a 401 is not (the key is wrong: asking again cannot help)', async () => {
  server.script({ kind: 'status', status: 503 }, json(valid));
  assert.is((await model().generate(request)).call.attempts, 2);
  server.script({ kind: 'status', status: 401, body: { error: { message: 'Incorrect API key' } } });
  const error = await failure(model().generate(request));
  assert.is(error.retryable, false);
  assert.is(server.requests.length, 1);
});

test.run();

import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Type from 'typebox';
import { loadConfig } from '../../config/index.ts';
import { languageModelFor } from '../../application/llm/models.ts';
import { LanguageModelError } from '../../application/llm/port.ts';

const test = suite('llm: Anthropic adapter (nock)');
const Reply = Type.Object({ resumo: Type.String(), score: Type.Number({ minimum: 0, maximum: 10 }) });
const request = { agent: 'committee.chair', prompt: { version: 'v1', text: 'Sintetize.' }, input: { a: 1 }, schema: Reply, offline: () => ({ resumo: 'x', score: 1 }) };
const model = () =>
  languageModelFor(loadConfig({ LLM_PROVIDER: 'anthropic', LLM_MODEL: 'claude-sonnet-4-5', LLM_API_KEY: 'sk-ant-test', LLM_RETRY_BASE_MS: '0', LLM_PRICES: 'p1;claude-sonnet-4-5=3/15' }));

/**
 * The provider asks for structured output natively (output_format) or through a forced `json`
 * tool, depending on the model: the fake answers whichever way it was asked.
 */
function answer(body: any, value: unknown) {
  const viaTool = Array.isArray(body.tools) && body.tools.some((t: { name: string }) => t.name === 'json');
  const content = viaTool ? [{ type: 'tool_use', id: 'toolu_1', name: 'json', input: value }] : [{ type: 'text', text: JSON.stringify(value) }];
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    stop_reason: viaTool ? 'tool_use' : 'end_turn',
    usage: { input_tokens: 2000, output_tokens: 400 },
  };
}

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test('a valid reply: output, the dated model name priced by its family, tokens and key header', async () => {
  let headers: Record<string, string | string[]> = {};
  nock('https://api.anthropic.com')
    .post('/v1/messages')
    .reply(function (_uri, body) {
      headers = this.req.headers;
      return [200, answer(body, { resumo: 'Aprovar com garantias.', score: 7 })];
    });
  const { output, call } = await model().generate(request);
  assert.equal(output, { resumo: 'Aprovar com garantias.', score: 7 });
  assert.is(headers['x-api-key'], 'sk-ant-test');
  assert.equal([call.model, call.inputTokens, call.outputTokens, call.costUsd, call.attempts], ['claude-sonnet-4-5-20250929', 2000, 400, 0.012, 1]);
});

test('529 overloaded then a reply outside the schema then a valid one: three attempts', async () => {
  const scope = nock('https://api.anthropic.com')
    .post('/v1/messages')
    .reply(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })
    .post('/v1/messages')
    .reply(200, (_uri, body) => answer(body, { resumo: 'x', score: 'dez' }))
    .post('/v1/messages')
    .reply(200, (_uri, body) => answer(body, { resumo: 'Ok.', score: 6 }));
  const { output, call } = await model().generate(request);
  assert.equal(output, { resumo: 'Ok.', score: 6 });
  assert.is(call.attempts, 3);
  assert.ok(scope.isDone());
});

test('a 400 (bad request) ends at once, not retryable', async () => {
  nock('https://api.anthropic.com')
    .post('/v1/messages')
    .reply(400, { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long' } });
  try {
    await model().generate(request);
    assert.unreachable('expected an error');
  } catch (error) {
    assert.instance(error, LanguageModelError);
    assert.is((error as LanguageModelError).retryable, false);
    assert.match((error as Error).message, /prompt is too long/);
  }
});

test.run();

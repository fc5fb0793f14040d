import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { documentAnalyserFor } from '../../application/registry/analysis/vision.ts';
import { loadConfig } from '../../config/index.ts';
import { pdfWith } from './support.ts';

const test = suite('registry: the vision model classifies the file and reads its fields (Anthropic Messages API, nock)');
const analyser = () =>
  documentAnalyserFor(
    loadConfig({ LLM_PROVIDER: 'anthropic', LLM_API_KEY: 'sk-ant-test', DOCUMENT_VISION_MODEL: 'claude-sonnet-4-5', LLM_MAX_ATTEMPTS: '1', OCR_TESSERACT_PATH: '/nonexistent/tesseract' }),
  );
const subject = { document: '11222333000181', name: 'Padaria Exemplo Ltda' };
const input = (bytes: Buffer, mimeType = 'application/pdf') => ({ bytes, mimeType, expectedType: 'CONTRATO_SOCIAL' as const, forceType: null, asOf: '2026-11-23T12:00:00.000Z', subject });

/** The Messages API's reply, structured output asked natively or through the forced `json` tool (as test/llm/anthropic.test.ts). */
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
    usage: { input_tokens: 1500, output_tokens: 300 },
  };
}

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test("the file goes as a document block; the model's type, transcription and fields give a VALIDO naming the subject, not a sandbox opinion", async () => {
  const pdf = await pdfWith(['digitalizado']);
  let sent: any;
  nock('https://api.anthropic.com')
    .post('/v1/messages')
    .reply(200, (_uri, body) => {
      sent = body;
      return answer(body, {
        type: 'CONTRATO_SOCIAL',
        transcription: 'CONTRATO SOCIAL DA PADARIA EXEMPLO LTDA, CNPJ 11.222.333/0001-81',
        fields: [
          { name: 'razaoSocial', value: 'Padaria Exemplo Ltda' },
          { name: 'cnpj', value: '11.222.333/0001-81' },
        ],
      });
    });
  const outcome = await analyser().analyse(input(pdf));
  assert.equal(outcome, {
    kind: 'opinion',
    type: 'CONTRATO_SOCIAL',
    verdict: 'VALIDO',
    score: 0.95,
    reason: 'Documento identificado como CONTRATO_SOCIAL.',
    validUntil: null,
    reading: { source: 'MODEL', model: 'claude-sonnet-4-5-20250929', fields: { razaoSocial: 'Padaria Exemplo Ltda', cnpj: '11.222.333/0001-81' } },
    provenance: { provider: 'claude-sonnet-4-5-20250929', sandbox: false },
  });
  const parts = sent.messages[0].content;
  const document = parts.find((p: { type: string }) => p.type === 'document');
  assert.equal([document?.source?.type, document?.source?.media_type, document?.source?.data], ['base64', 'application/pdf', pdf.toString('base64')]);
  assert.equal(JSON.parse(parts.find((p: { type: string }) => p.type === 'text').text), {
    acceptedTypes: JSON.parse(parts.find((p: { type: string }) => p.type === 'text').text).acceptedTypes,
    expectedType: 'CONTRATO_SOCIAL',
  });
});

test("a contract the model reads as another company's is INVALIDO, saying why; a model that refuses leaves the file to the offline analyser", async () => {
  nock('https://api.anthropic.com')
    .post('/v1/messages')
    .reply(200, (_uri, body) => answer(body, { type: 'CONTRATO_SOCIAL', transcription: 'CONTRATO SOCIAL DA OUTRA EMPRESA S.A., CNPJ 45.723.174/0001-10', fields: [] }));
  const foreign = await analyser().analyse(input(await pdfWith(['x'])));
  assert.equal(
    [(foreign as { verdict: string }).verdict, (foreign as { reason: string }).reason],
    ['INVALIDO', 'O documento identificado como CONTRATO_SOCIAL menciona outro CNPJ, não o do titular do cadastro: é de outra pessoa ou empresa.'],
  );

  nock('https://api.anthropic.com')
    .post('/v1/messages')
    .reply(400, { type: 'error', error: { type: 'invalid_request_error', message: 'image too large' } });
  const fallback = await analyser().analyse(input(await pdfWith(['CONTRATO SOCIAL', 'Padaria Exemplo Ltda'])));
  assert.equal([(fallback as { verdict: string }).verdict, (fallback as { sandbox?: true }).sandbox], ['VALIDO', true]);
});

test.run();

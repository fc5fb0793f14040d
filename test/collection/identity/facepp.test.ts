import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FaceppIdentityProvider } from '../../../application/collection/identity/facepp.ts';
import { IdentityProviderUnavailable } from '../../../application/collection/identity/provider.ts';
import { identityProviderFor } from '../../../application/collection/identity/providers.ts';
import { ConfigurationError, loadConfig } from '../../../config/index.ts';
import { testJpeg, testPng } from './images.ts';

const test = suite('identity: Face++ Compare adapter (nock)');
const BASE = 'https://facepp.example.test';
const provider = new FaceppIdentityProvider(BASE, 'key-1', 'secret-1', 300);
const images = { document: testJpeg(null), selfie: testPng(null, 2) };
const THRESHOLDS = { '1e-3': 62.327, '1e-4': 69.101, '1e-5': 73.975 };
const face = { face_token: 'f1', face_rectangle: { top: 10, left: 10, width: 50, height: 50 } };
const compare = () =>
  nock(BASE).post(
    '/facepp/v3/compare',
    (body: Record<string, string>) =>
      body.api_key === 'key-1' && body.api_secret === 'secret-1' && body.image_base64_1 === images.document.toString('base64') && body.image_base64_2 === images.selfie.toString('base64'),
  );

async function unavailable(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    assert.instance(error, IdentityProviderUnavailable);
    return (error as Error).message;
  }
  return assert.unreachable('expected no result') as never;
}

test.before(() => nock.disableNetConnect());
test.after.each(() => nock.cleanAll());
test.after(() => nock.enableNetConnect());

test('a match above the 1e-5 threshold is APROVADO with the similarity; liveness is not measured; the raw reply only in raw', async () => {
  const reply = { request_id: 'r1', confidence: 97.345, thresholds: THRESHOLDS, faces1: [face], faces2: [face], time_used: 400 };
  compare().reply(200, reply);
  const result = await provider.verify(images);
  assert.equal(result, { verdict: 'APROVADO', similarity: 0.9735, liveness: null, signals: [], raw: reply });
  assert.ok(nock.isDone());
});

test('refusal: below the 1e-3 threshold REPROVADO; between the thresholds INCONCLUSIVO; several faces in the selfie never approve', async () => {
  compare().reply(200, { confidence: 20.1, thresholds: THRESHOLDS, faces1: [face], faces2: [face] });
  assert.equal((await provider.verify(images)).verdict, 'REPROVADO');
  compare().reply(200, { confidence: 65, thresholds: THRESHOLDS, faces1: [face], faces2: [face] });
  assert.equal((await provider.verify(images)).verdict, 'INCONCLUSIVO');
  compare().reply(200, { confidence: 90, thresholds: THRESHOLDS, faces1: [face], faces2: [face, face] });
  const several = await provider.verify(images);
  assert.equal([several.verdict, several.signals], ['INCONCLUSIVO', ['VARIOS_ROSTOS_SELFIE']]);
});

test('no face in an image, or a picture Face++ refuses: REPROVADO with the signal, so the person sends other photos', async () => {
  compare().reply(200, { request_id: 'r2', faces1: [], faces2: [face], time_used: 300 });
  const noFace = await provider.verify(images);
  assert.equal([noFace.verdict, noFace.similarity, noFace.signals], ['REPROVADO', null, ['ROSTO_NAO_ENCONTRADO_DOCUMENTO']]);
  compare().reply(400, { error_message: 'IMAGE_ERROR_UNSUPPORTED_FORMAT: image_base64_2' });
  const refused = await provider.verify(images);
  assert.equal([refused.verdict, refused.signals], ['REPROVADO', ['IMAGEM_RECUSADA']]);
});

test('5xx, refused credentials, quota and timeout give no result', async () => {
  compare().reply(503, 'unavailable');
  assert.match(await unavailable(provider.verify(images)), /^Face\+\+ HTTP 503/);
  compare().reply(401, { error_message: 'AUTHENTICATION_ERROR' });
  assert.match(await unavailable(provider.verify(images)), /AUTHENTICATION_ERROR/);
  compare().reply(403, { error_message: 'CONCURRENCY_LIMIT_EXCEEDED' });
  assert.match(await unavailable(provider.verify(images)), /CONCURRENCY_LIMIT_EXCEEDED/);
  compare().delay(2000).reply(200, {});
  assert.match(await unavailable(provider.verify(images)), /TimeoutError/);
});

test('configuration: sandbox by default, facepp needs its key and secret', () => {
  const base = { DATA_DIR: '/tmp' };
  assert.is(identityProviderFor(loadConfig(base)).name, 'sandbox');
  assert.is(identityProviderFor(loadConfig({ ...base, IDENTITY_PROVIDER: 'facepp', FACEPP_API_KEY: 'k', FACEPP_API_SECRET: 's' })).name, 'facepp');
  assert.throws(
    () => identityProviderFor(loadConfig({ ...base, IDENTITY_PROVIDER: 'facepp' })),
    (error: unknown) => error instanceof ConfigurationError,
  );
});

test.run();

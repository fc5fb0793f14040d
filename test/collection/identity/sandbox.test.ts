import { fileTypeFromBuffer } from 'file-type';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IdentityProviderUnavailable } from '../../../application/collection/identity/provider.ts';
import { SandboxIdentityProvider } from '../../../application/collection/identity/sandbox.ts';
import { maskDocument } from '../../../domain/collection/kinds/identity.ts';
import { approvedImages, inconclusiveImages, rejectedImages, testJpeg, testPng, unavailableImages } from './images.ts';

const test = suite('identity: the offline sandbox provider and its test images');
const sandbox = new SandboxIdentityProvider();
const outcome = async (images: { document: Buffer; selfie: Buffer }) => {
  const { raw: _, ...result } = await sandbox.verify(images);
  return result;
};

test('the test images are real PNG and JPEG files', async () => {
  assert.equal((await fileTypeFromBuffer(testPng('APROVADO')))?.mime, 'image/png');
  assert.equal((await fileTypeFromBuffer(testJpeg('APROVADO')))?.mime, 'image/jpeg');
  assert.equal((await fileTypeFromBuffer(testJpeg(null)))?.mime, 'image/jpeg');
});

test('the marker decides: approved, rejected with its signals, inconclusive, no result', async () => {
  assert.equal(await outcome(approvedImages()), { verdict: 'APROVADO', similarity: 0.97, liveness: 0.99, signals: [] });
  assert.equal(await outcome(rejectedImages()), { verdict: 'REPROVADO', similarity: 0.12, liveness: 0.91, signals: ['FOTO_DE_TELA'] });
  assert.equal(await outcome(inconclusiveImages()), { verdict: 'INCONCLUSIVO', similarity: 0.71, liveness: 0.62, signals: [] });
  try {
    await sandbox.verify(unavailableImages());
    assert.unreachable('expected no result');
  } catch (error) {
    assert.instance(error, IdentityProviderUnavailable);
  }
});

test("the selfie's marker first, then the document's (a JPEG comment); identical images REPROVADO; no marker INCONCLUSIVO without scores", async () => {
  assert.is((await outcome({ document: testJpeg('REPROVADO'), selfie: testPng(null, 2) })).verdict, 'REPROVADO');
  assert.is((await outcome({ document: testJpeg('REPROVADO'), selfie: testPng('APROVADO', 2) })).verdict, 'APROVADO');
  const same = testPng('APROVADO');
  assert.equal(await outcome({ document: same, selfie: Buffer.from(same) }), { verdict: 'REPROVADO', similarity: 1, liveness: 0, signals: ['IMAGENS_IGUAIS'] });
  assert.equal(await outcome({ document: testJpeg(null), selfie: testPng(null, 2) }), { verdict: 'INCONCLUSIVO', similarity: null, liveness: null, signals: [] });
  assert.equal(await outcome({ document: testJpeg(null), selfie: testPng('TALVEZ', 2) }), { verdict: 'INCONCLUSIVO', similarity: null, liveness: null, signals: [] });
});

test('documents are masked: CPF, CNPJ, anything else', () => {
  assert.is(maskDocument('123.456.789-09'), '***.456.789-**');
  assert.is(maskDocument('11222333000181'), '**.222.333/****-**');
  assert.is(maskDocument('***'), '***');
});

test.run();

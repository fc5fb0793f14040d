import * as assert from 'uvu/assert';
import { generateP12 } from '../../../application/collection/signed-document/certificate.ts';
import { SANDBOX_MARK } from '../../../domain/shared/provenance.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { provisionTenant, type TestTenant } from '../../support/identity.ts';
import { poppler, suiteNeeding } from '../../support/system-tools.ts';
import { pageText } from './pdf-tools.ts';
import { detailWhen } from '../support.ts';
import { copiesRecorded, signAs, signingCollection } from './support.ts';

const test = suiteNeeding('signed copies say which certificate signed them; the self-signed default marks the evidence page (issue 37)', [poppler('pdftotext')]);

/** One party signs a one-page contract: the API's copy and the evidence page (page 2) of the downloaded PDF. */
async function signedCopy(app: TestApp, tenant: TestTenant) {
  const c = await signingCollection(app, tenant, { pages: 1, parties: 1 });
  await signAs(app, tenant.organizationId, c, c.recipientIds[0]!);
  await copiesRecorded(app, c);
  const call = (method: string, path: string) => app.call(method, path, { token: tenant.token });
  const detail = await detailWhen(app, call, tenant.organizationId, c.collectionId, (d) => d.items[0].details.signature.signedCopies.length > 0, 'the copy in the detail');
  const [copy] = detail.items[0].details.signature.signedCopies;
  const response = await fetch(`${app.url}/v1/collections/${c.collectionId}/items/${c.itemId}/signed-document`, { headers: { authorization: `Bearer ${tenant.token}` } });
  assert.is(response.status, 200);
  return { copy, evidence: await pageText(Buffer.from(await response.arrayBuffer()), 2) };
}

async function withApp(env: Record<string, string>, run: (app: TestApp, tenant: TestTenant) => Promise<void>) {
  const app = await startTestApp(env);
  try {
    await run(app, await provisionTenant(app));
  } finally {
    await app.stop();
  }
}

test('the self-signed default certificate: provenance self-signed, sandbox; the evidence page says AMBIENTE DE TESTES', () =>
  withApp({}, async (app, tenant) => {
    const { copy, evidence } = await signedCopy(app, tenant);
    assert.equal(copy.provenance, { provider: 'self-signed', sandbox: true });
    assert.ok(evidence.includes(SANDBOX_MARK), evidence);
    assert.match(evidence, /AMBIENTE DE TESTES/);
  }));

test('a configured PKCS#12 (SIGNING_P12_BASE64): provenance pkcs12, not sandbox; no test mark on the evidence page', () =>
  withApp({ SIGNING_P12_BASE64: generateP12('senha-da-p12').toString('base64'), SIGNING_P12_PASSWORD: 'senha-da-p12' }, async (app, tenant) => {
    const { copy, evidence } = await signedCopy(app, tenant);
    assert.equal(copy.provenance, { provider: 'pkcs12', sandbox: false });
    assert.is(copy.signature.provenance, undefined, 'said once, beside the signature');
    assert.not.match(evidence, /AMBIENTE DE TESTES/);
    assert.match(evidence, /Evidências da assinatura eletrônica/);
  }));

test.run();

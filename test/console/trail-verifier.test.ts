import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { startTestApp, type TestApp } from '../support/app.ts';
import { CHROMIUM_TOOL, launchChromium } from '../support/chromium.ts';
import { giveLogin, provisionTenant, type TestTenant } from '../support/identity.ts';
import { suiteNeeding } from '../support/system-tools.ts';
import { eventually } from '../support/wait.ts';
import { OPENSSL_TOOL, startTestTsa, type TestTsa } from '../support/tsa.ts';
import { exportOf, waitForSeals } from '../collection-trail/support.ts';
import { opensslTimestampText } from '../collection/signed-document/pdf-tools.ts';

const EMAIL = 'auditora@banco.example';
const PASSWORD = 'uma senha bem longa';

interface Ctx {
  tsa: TestTsa;
  app: TestApp;
  tenant: TestTenant;
  browser: Browser;
  page: Page;
  collectionId: string;
}
/**
 * The console's trail verification in chromium (http/console/assets/trilha.js) against a service
 * whose seals the test's openssl TSA timestamps: it checks the export's signed head and each
 * seal's timestamp imprint, shows each seal's timestamp time, and says the TSA's signature is the
 * offline verifier's to check. The export is altered on its way to the page (as a man in the
 * middle, or a doctored file, would): the browser's checks catch it, not the server.
 */
const test = suiteNeeding<Ctx>("console: the trail verified in the browser checks the export's head and the seals' timestamps", [CHROMIUM_TOOL, OPENSSL_TOOL]);

test.before(async (ctx) => {
  ctx.tsa = await startTestTsa();
  ctx.app = await startTestApp({ TSA_URL: ctx.tsa.url, TSA_CA_CERTS_PATH: ctx.tsa.caPath, TRAIL_SEAL_MAX_DELAY_S: '2' });
  ctx.tenant = await provisionTenant(ctx.app, { name: 'Banco Exemplo' });
  await giveLogin(ctx.app, ctx.tenant.userId, EMAIL, PASSWORD);
  const created = await ctx.app.call('POST', '/v1/collections', {
    token: ctx.tenant.token,
    body: {
      subject: { name: 'Padaria Exemplo Ltda', document: '11.222.333/0001-81' },
      items: [{ key: 'contrato', kind: 'DOCUMENT', title: 'Contrato social', expectedType: 'CONTRATO_SOCIAL' }],
      recipients: [{ name: 'Ana Sócia', email: 'ana@example.com' }],
      send: true,
    },
  });
  assert.is(created.status, 201, JSON.stringify(created.body));
  ctx.collectionId = created.body.id;
  // Each seal waits on an openssl TSA reply: on a loaded machine that can outlast one 20 s wait.
  await eventually(
    () =>
      waitForSeals(ctx.app, ctx.collectionId).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 120_000, what: 'the seals' },
  );
  ctx.browser = await launchChromium();
  ctx.page = await (await ctx.browser.newContext()).newPage();
  await ctx.page.goto(`${ctx.app.url}/console`);
  await ctx.page.fill('#email', EMAIL);
  await ctx.page.fill('#senha', PASSWORD);
  // Generous: a loaded machine signs in slowly (the password hash), and nothing here measures speed.
  await Promise.all([ctx.page.waitForURL(`${ctx.app.url}/console`, { timeout: 60_000 }), ctx.page.click('button[type=submit]')]);
});
test.after(async (ctx) => {
  await ctx.browser?.close();
  await ctx.app?.stop();
  await ctx.tsa?.stop();
});

/** Opens the collection's page, the export altered by `alter` on its way, and returns the verdict's state and text. */
async function verdict(ctx: Ctx, alter?: (doc: any) => void): Promise<{ verified: string | null; text: string }> {
  const { page } = ctx;
  await page.unrouteAll();
  if (alter) {
    await page.route(`**/console/coletas/${ctx.collectionId}/trilha.json`, async (route) => {
      const response = await route.fetch();
      const doc = await response.json();
      alter(doc);
      await route.fulfill({ response, json: doc });
    });
  }
  await page.goto(`${ctx.app.url}/console/coletas/${ctx.collectionId}`);
  await page.click('#verificar-cadeia');
  await page.waitForSelector('#veredito[data-verificada]', { timeout: 20_000 });
  return { verified: await page.getAttribute('#veredito', 'data-verificada'), text: (await page.textContent('#veredito'))! };
}

test("the page shows each seal's timestamp time, read from the token, and says who checks the TSA's signature", async (ctx) => {
  const doc = JSON.parse((await exportOf(ctx.app, ctx.tenant.token, ctx.collectionId)).text);
  const seals = doc.entries.filter((e: any) => e.seal).map((e: any) => e.seal);
  assert.ok(seals.length >= 2, `${seals.length} seals`);
  const { verified, text } = await verdict(ctx);
  assert.is(verified, 'sim', text);
  assert.match(text, /selos e a cabeça da exportação conferidos/);
  assert.match(text, /verificador offline \(scripts\/verify-trail\.ts com --tsa-ca\)/);
  for (const seal of seals) {
    // openssl prints whole seconds; the page prints the token's genTime as written (this TSA: whole seconds).
    const time = (await opensslTimestampText(Buffer.from(seal.timestamp, 'base64'))).time.toISOString().slice(0, 19);
    assert.match(text, new RegExp(`selo na entrada ${seal.seq} \\(chave ${seal.keyId}\\): carimbo do tempo de ${time}(\\.\\d+)?Z`));
  }
});

test('a timestamp moved from another seal is caught: it does not cover this seal', async (ctx) => {
  const { verified, text } = await verdict(ctx, (doc) => {
    const [first, second] = doc.entries.filter((e: any) => e.seal);
    second.seal.timestamp = first.seal.timestamp;
  });
  assert.is(verified, 'nao', text);
  assert.match(text, /entrada \d+: o carimbo do tempo não cobre este selo/);
});

test("a tail entry dropped from the export is caught by the export's signed head", async (ctx) => {
  let last = 0;
  const { verified, text } = await verdict(ctx, (doc) => {
    last = doc.entries.length;
    doc.entries.pop();
    doc.entryCount--;
  });
  assert.is(verified, 'nao', text);
  assert.match(text, new RegExp(`a cabeça da exportação nomeia a entrada ${last} e a exportação termina na entrada ${last - 1}: entradas do fim foram removidas`));
});

test.run();

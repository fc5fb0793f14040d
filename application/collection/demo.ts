import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { AppContext } from '../context.ts';
import type { DemoSeeder } from '../demo.ts';
import { ensureRegistry, receiveDocument } from '../registry/intake-commands.ts';
import { actorOf } from './actor.ts';
import { createCollection } from './commands.ts';
import { acceptConsent } from './consent/commands.ts';
import { submitForm } from './form/commands.ts';
import { hashSignatureCode, confirmSignatureCode } from './signature/codes.ts';
import { recordSignatureCodeSent, signItem } from './signature/commands.ts';

const COMPANY = { name: 'Padaria Pão Dourado Ltda', document: '11222333000181', entityType: 'COMPANY' as const };
const TERM = 'Autorizo a consulta ao Sistema de Informações de Crédito (SCR) do Banco Central em meu nome e em nome da empresa, para a análise desta proposta de crédito.';
/** What the demo's signing party "typed": never sent anywhere, only hashed like a real code. */
const DEMO_CODE = '246810';
const DEMO_USER_AGENT = 'provision --demo';

/** A one-page contract to sign (the demo has no pipeline contract of its own). */
async function contractPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const lines = [
    'CONTRATO DE CAPITAL DE GIRO (DEMONSTRAÇÃO)',
    `Contratante: ${COMPANY.name}, CNPJ 11.222.333/0001-81.`,
    'Valor: R$ 80.000,00 em 18 parcelas mensais.',
    'Assinam: Ana Souza (sócia) e Bruno Lima (avalista), nesta ordem.',
  ];
  lines.forEach((line, i) => page.drawText(line, { x: 50, y: 780 - 20 * i, font, size: 11 }));
  return Buffer.from(await doc.save());
}

/**
 * `provision --demo`: one collection for the demo company showing the item kinds beyond
 * documents, each in a state a newcomer can look at: the registration FORM answered and the
 * SCR CONSENT accepted by Ana (both VALIDATED), an IDENTITY check waiting for her photos, and a
 * JOINT contract SIGNATURE in a set order that Ana signed (her e-mail proved by a code) and Bruno
 * still has to sign. No message leaves (notification channel NONE); the links are printed instead.
 */
export const collectionDemoSeeder: DemoSeeder = {
  name: 'collection',
  async seed(app: AppContext, tenant) {
    const { organizationId, principal } = tenant;
    const actor = actorOf(principal);
    const { registryId } = await ensureRegistry(app, organizationId, COMPANY, actor);
    const contract = await receiveDocument(app, { organizationId, registryId, fileName: 'contrato-capital-de-giro.pdf', bytes: await contractPdf(), expectedType: null, source: null, actor });
    const created = await createCollection(app, principal, {
      // By subject, not registryId: the registry read model may not have the registry created a moment ago.
      subject: { name: COMPANY.name, document: COMPANY.document },
      message: 'Olá! Para concluir a proposta de capital de giro, precisamos destes itens.',
      notificationChannel: 'NONE',
      send: true,
      items: [
        {
          key: 'ficha',
          kind: 'FORM',
          title: 'Ficha cadastral',
          config: {
            form: {
              fields: [
                { key: 'faturamento', label: 'Faturamento mensal (R$)', type: 'NUMBER', required: true, choices: null, validation: { min: 0 } },
                { key: 'setor', label: 'Setor', type: 'STRING', required: true, choices: ['comercio', 'industria', 'servicos'], validation: null },
                { key: 'exporta', label: 'Exporta', type: 'BOOLEAN', required: false, choices: null, validation: null },
              ],
            },
          },
        },
        { key: 'scr', kind: 'CONSENT', title: 'Autorização de consulta ao SCR', config: { consent: { type: 'scr', version: 1, text: TERM } } },
        { key: 'identidade', kind: 'IDENTITY', title: 'Documento com foto e selfie da sócia' },
        {
          key: 'contrato',
          kind: 'SIGNATURE',
          title: 'Contrato de capital de giro',
          config: { signature: { mode: 'JOINT', flow: 'SIGNATURE', ordered: true, registryDocumentId: contract.registryDocumentId } },
        },
      ],
      recipients: [
        { name: 'Ana Souza', email: 'ana@example.com', phone: '+5511987650001' },
        { name: 'Bruno Lima', email: 'bruno@example.com', itemKeys: ['contrato'] },
      ],
    });
    const { state } = created;
    const collectionId = state.collectionId!;
    const itemOf = (kind: string) => state.items.find((i) => i.kind === kind)!.itemId;
    const ana = { organizationId, collectionId, recipientId: state.recipients[0]!.recipientId };
    const evidence = { origin: { ip: null }, userAgent: DEMO_USER_AGENT };
    await submitForm(app, { ...ana, itemId: itemOf('FORM'), answers: { faturamento: 120_000, setor: 'comercio', exporta: false } });
    const consent = state.items.find((i) => i.kind === 'CONSENT')!.config!.consent!;
    await acceptConsent(app, { ...ana, itemId: itemOf('CONSENT'), termHash: consent.hash, ...evidence });
    const signing = { ...ana, itemId: itemOf('SIGNATURE') };
    await recordSignatureCodeSent(app, { ...signing, channel: 'EMAIL', codeHash: hashSignatureCode(app.config, signing, DEMO_CODE) });
    await confirmSignatureCode(app, signing, DEMO_CODE);
    await signItem(app, { ...signing, ...evidence });
    return { collections: [{ id: collectionId, title: 'Onboarding da Padaria Pão Dourado', links: created.links.map((l) => ({ recipientId: l.recipientId, url: l.url })) }] };
  },
};

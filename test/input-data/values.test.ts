import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CollectionState, ItemState } from '../../domain/collection/state.ts';
import { initialCollectionState } from '../../domain/collection/state.ts';
import { documentFields } from '../../domain/input-data/fields.ts';
import { assembleInputData, hashedContent, readable } from '../../domain/input-data/values.ts';
import { policyInputs } from '../../domain/operation/inputs.ts';
import type { ProposalState } from '../../domain/proposal/state.ts';
import { initialProposalState } from '../../domain/proposal/state.ts';

const test = suite('input data assembly');
const PROPOSAL = 'b00000000000000000000001';

const proposal = (extra: Partial<NonNullable<ProposalState['created']>> = {}): ProposalState => ({
  ...initialProposalState(),
  created: {
    proposalId: PROPOSAL,
    organizationId: 'a00000000000000000000001',
    requestedAmountCents: null,
    fixedAmountCents: 1_500_050,
    requestedTermMonths: 24,
    productKey: 'capital-giro',
    portfolioName: null,
    kind: 'FINANCING',
    origin: 'CHANNEL',
    entityType: 'COMPANY',
    ...extra,
  } as NonNullable<ProposalState['created']>,
  participants: [{ role: 'GUARANTOR' }, { role: 'PARTNER' }] as ProposalState['participants'],
});

const formItem = (answers: Record<string, unknown>): ItemState =>
  ({
    itemId: 'i1',
    key: 'ficha',
    kind: 'FORM',
    title: 'Ficha cadastral',
    files: [],
    details: { form: { answers, submittedAt: '2026-11-01T00:00:00.000Z', recipientId: null } },
    config: {
      form: {
        fields: [
          { key: 'faturamento', label: 'Faturamento mensal', type: 'NUMBER', required: true, choices: null, validation: null },
          { key: 'fundacao', label: 'Fundação', type: 'DATE', required: false, choices: null, validation: null },
          { key: 'setor', label: 'Setor', type: 'STRING', required: false, choices: null, validation: null },
        ],
      },
    },
  }) as unknown as ItemState;

const opinion = (type: string, verdict: string, score: number) => ({
  registryDocumentId: 'r',
  recipientId: null,
  submittedAt: '2026-11-01T00:00:00.000Z',
  opinion: { registryDocumentId: 'r', attempt: 1, type, verdict, score, reason: null },
});

const collection = (id: string, completedAt: string, items: ItemState[]): CollectionState => ({
  ...initialCollectionState(),
  collectionId: id,
  status: 'COMPLETED',
  completedAt,
  template: { slug: 'ficha-pj', name: 'Ficha PJ', version: 1 },
  items,
});

test('proposal keys: reais, the fixed value when nothing was requested, PJ/PF, counts', () => {
  const { fields, collectionIds } = assembleInputData(proposal(), []);
  assert.equal(collectionIds, []);
  assert.equal(Object.fromEntries(fields.map((f) => [f.key, f.value])), {
    'proposta.valor_pedido': 15000.5,
    'proposta.prazo_pedido': 24,
    'proposta.produto': 'capital-giro',
    'proposta.carteira': null,
    'proposta.tipo': 'FINANCING',
    'proposta.origem': 'CHANNEL',
    'proposta.tipo_pessoa': 'PJ',
    'proposta.participantes_qtd': 2,
    'proposta.avalistas_qtd': 1,
  });
  assert.ok(fields.every((f) => f.sourceId === PROPOSAL && f.source === 'PROPOSAL' && f.group === 'Proposta'));
});

test('the most recently completed collection wins each key; older ones keep the keys only they answered', () => {
  const older = collection('c1', '2026-11-01T10:00:00.000Z', [formItem({ faturamento: 42000, setor: 'servicos' })]);
  const newer = collection('c2', '2026-11-02T10:00:00.000Z', [formItem({ faturamento: 50000 })]);
  for (const order of [
    [older, newer],
    [newer, older],
  ]) {
    const { fields, collectionIds } = assembleInputData(proposal(), order);
    const form = fields.filter((f) => f.source === 'FORM').map((f) => [f.key, f.value, f.sourceId, f.label, f.group]);
    assert.equal(form, [
      ['form.ficha-pj.faturamento', 50000, 'c2', 'Faturamento mensal (Ficha PJ)', 'Formulário'],
      ['form.ficha-pj.setor', 'servicos', 'c1', 'Setor (Ficha PJ)', 'Formulário'],
    ]);
    assert.equal(collectionIds, ['c2', 'c1']);
  }
  const shadowed = assembleInputData(proposal(), [older, collection('c3', '2026-11-03T10:00:00.000Z', [formItem({ faturamento: 1, setor: 'comercio' })])]);
  assert.equal(shadowed.collectionIds, ['c3'], 'a collection whose every key is answered by a newer one contributed nothing');
});

test('an unreadable value is null, without error', () => {
  const { fields } = assembleInputData(proposal(), [collection('c1', '2026-11-01T10:00:00.000Z', [formItem({ faturamento: '***', fundacao: '2026-02-30', setor: 7 })])]);
  assert.equal(
    fields.filter((f) => f.source === 'FORM').map((f) => [f.key, f.value]),
    [
      ['form.ficha-pj.faturamento', null],
      ['form.ficha-pj.fundacao', null],
      ['form.ficha-pj.setor', null],
    ],
  );
  assert.is(readable('DATE', '2026-02-28'), '2026-02-28');
  assert.is(readable('NUMBER', Number.NaN), null);
});

test('document keys: verdict of the latest file, lists as _qtd and numeric lists also as _soma; verification keys', () => {
  const docs = {
    itemId: 'd1',
    kind: 'DOCUMENT',
    title: 'Contrato',
    details: {},
    files: [opinion('CONTRATO_SOCIAL', 'INVALIDO', 0.5), opinion('CONTRATO_SOCIAL', 'VALIDO', 0.75), opinion('FORA_DE_ESCOPO', 'INVALIDO', 0.7)],
  } as unknown as ItemState;
  const consent = {
    itemId: 'k1',
    kind: 'CONSENT',
    title: 'SCR',
    files: [],
    config: { consent: { type: 'scr' } },
    details: { consent: { recipientId: null, acceptedAt: 'x', termHash: 'h' } },
  } as unknown as ItemState;
  const identity = {
    itemId: 'v1',
    kind: 'IDENTITY',
    title: 'Selfie',
    files: [],
    details: { identity: { started: [], checks: [{ verdict: 'REPROVADO' }, { verdict: 'APROVADO' }] } },
  } as unknown as ItemState;
  const { fields } = assembleInputData(proposal(), [collection('c1', '2026-11-01T10:00:00.000Z', [docs, consent, identity])]);
  assert.equal(Object.fromEntries(fields.filter((f) => f.source === 'DOCUMENT' || f.source === 'VERIFICATION').map((f) => [f.key, f.value])), {
    'doc.CONTRATO_SOCIAL.arquivos_qtd': 2,
    'doc.CONTRATO_SOCIAL.score_qtd': 2,
    'doc.CONTRATO_SOCIAL.score_soma': 1.25,
    'doc.CONTRATO_SOCIAL.valido': true,
    'doc.CONTRATO_SOCIAL.veredito': 'VALIDO',
    'kyc.consentimento_scr': true,
    'kyc.identidade_aprovada': true,
  });
  assert.equal(
    documentFields('CERTIDAO_FGTS').map((f) => [f.key, f.type]),
    [
      ['doc.CERTIDAO_FGTS.veredito', 'STRING'],
      ['doc.CERTIDAO_FGTS.valido', 'BOOLEAN'],
      ['doc.CERTIDAO_FGTS.arquivos_qtd', 'NUMBER'],
      ['doc.CERTIDAO_FGTS.score_qtd', 'NUMBER'],
      ['doc.CERTIDAO_FGTS.score_soma', 'NUMBER'],
    ],
  );
});

test('the hashed content is the values by key (not their sources); the policy reads each key as a dotted path', () => {
  const a = assembleInputData(proposal(), [collection('c1', '2026-11-01T10:00:00.000Z', [formItem({ faturamento: 1 })])]);
  const b = assembleInputData(proposal(), [collection('c9', '2026-11-05T10:00:00.000Z', [formItem({ faturamento: 1 })])]);
  assert.equal(hashedContent(a.fields), hashedContent(b.fields));
  assert.not.equal(hashedContent(a.fields), hashedContent(assembleInputData(proposal(), [collection('c1', '2026-11-01T10:00:00.000Z', [formItem({ faturamento: 2 })])]).fields));
  const inputs = policyInputs(a.fields);
  assert.equal((inputs.proposta as Record<string, unknown>).valor_pedido, 15000.5);
  assert.equal(inputs.form, { 'ficha-pj': { faturamento: 1 } });
});

test.run();

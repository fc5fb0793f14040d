import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readPdfText } from '../../platform/pdf-text.ts';
import { renderContractPdf } from '../../application/operation/contract-pdf.ts';
import { contractFields, dueDate, fillContract, unknownContractFields, type ContractFacts } from '../../domain/operation/contract.ts';
import type { ExecutionEvent } from '../../domain/operation/events.ts';
import { executionDecider, executionStatus, nextAction, type ExecutionCommand } from '../../domain/operation/execution-decider.ts';
import { OperationMessages } from '../../domain/operation/messages.ts';
import type { PipelineStep } from '../../domain/operation/pipeline.ts';
import { operationDecider } from '../../domain/operation/decider.ts';
import { fold } from '../../domain/shared/decider.ts';
import { given } from '../support/decider.ts';
import { contractStep, fullPipeline, POLICY } from './fixtures.ts';

const test = suite('contract step: decider, fields, PDF');
const ORG = 'a'.repeat(24);
const EXEC = 'e'.repeat(24);
const OFFER = '2'.repeat(24);
const FIRM = '3'.repeat(24);
const COLLECTION = '4'.repeat(24);
const DOC = '5'.repeat(24);
const AT = '2026-11-23T14:00:00.000Z';
const facts = { executionId: EXEC, organizationId: ORG, proposalId: 'f'.repeat(24) };
const CONTRACT = contractStep();

/** Report, offer, choice: the execution reaches the step after WAIT_CUSTOMER_CHOICE. */
function toChoice(steps: PipelineStep[]): ExecutionEvent[] {
  const commands: ExecutionCommand[] = [
    {
      type: 'StartExecution',
      ...facts,
      kind: 'OPERATION',
      operationId: 'o'.repeat(24),
      operationVersion: 1,
      targetId: 'o'.repeat(24),
      document: '12345678909',
      entityType: 'PERSON',
      steps,
      userId: 'u',
      at: AT,
    },
    { type: 'RecordReport', reportId: '1'.repeat(24), policyId: POLICY, at: AT },
    { type: 'RecordReportResult', reportId: '1'.repeat(24), status: 'APPROVED', score: 700, at: AT },
    { type: 'RecordOfferSent', offerId: OFFER, at: AT },
    { type: 'RecordOfferChosen', offerId: OFFER, amountCents: 500_000, termMonths: 12, at: AT },
  ];
  return commands.reduce<ExecutionEvent[]>((events, command) => [...events, ...executionDecider.decide(command, fold(executionDecider, events))], []);
}

const base = (stepIndex: number) => ({ ...facts, stepIndex, at: AT });
const opened: ExecutionCommand = { type: 'RecordContractOpened', collectionId: COLLECTION, contractDocumentId: DOC, at: AT };
const signed: ExecutionCommand = { type: 'RecordContractSigned', collectionId: COLLECTION, provider: 'interno', contentHash: 'h'.repeat(64), at: AT };
const openedEvent: ExecutionEvent = { type: 'ExecutionContractOpened', data: { ...base(3), collectionId: COLLECTION, contractDocumentId: DOC } };
const lastStepSteps = [...fullPipeline.steps.slice(0, 3), CONTRACT];

test('a pipeline with the contract after the choice is accepted', () => {
  const content = { ...fullPipeline, steps: [...fullPipeline.steps, CONTRACT] };
  assert.is(operationDecider.decide({ type: 'CreateOperation', operationId: 'o'.repeat(24), organizationId: ORG, userId: 'u', content, at: AT }, operationDecider.initialState()).length, 1);
});

test('after the choice the contract opens, then the execution waits for the signature', () => {
  const history = toChoice(lastStepSteps);
  assert.equal(nextAction(fold(executionDecider, history)), { type: 'OPEN_CONTRACT', step: CONTRACT, stepIndex: 3, chosen: { offerId: OFFER, amountCents: 500_000, termMonths: 12 } });
  given(executionDecider, history).when(opened).then([openedEvent]);
  const waiting = fold(executionDecider, [...history, openedEvent]);
  assert.is(executionStatus(waiting), 'WAITING_SIGNATURE');
  assert.is(nextAction(waiting), null);
  given(executionDecider, [...history, openedEvent])
    .when(opened)
    .then([], 'opened once');
});

test('the signature formalizes the contract; as the last step the execution ends APPROVED', () => {
  const history = [...toChoice(lastStepSteps), openedEvent];
  const events = given(executionDecider, history).when(signed).decided();
  assert.equal(
    events.map((e) => e.type),
    ['ExecutionContractFormalized', 'ExecutionFinished'],
  );
  assert.equal(events[0]!.data, { ...base(3), collectionId: COLLECTION, contractDocumentId: DOC, provider: 'interno', contentHash: 'h'.repeat(64) });
  assert.is((events[1]!.data as { status: string }).status, 'APPROVED');
  given(executionDecider, history)
    .when({ ...signed, collectionId: '9'.repeat(24) })
    .then([], "another collection's signature is not this contract's");
});

test('after a firm offer the formalized contract waits for the closing', () => {
  const steps = [...fullPipeline.steps, CONTRACT];
  let events = toChoice(steps);
  for (const command of [{ type: 'DecideFinalApproval', at: AT }, { type: 'RecordFirmOffer', offerId: FIRM, at: AT }, opened, signed] as ExecutionCommand[]) {
    events = [...events, ...executionDecider.decide(command, fold(executionDecider, events))];
  }
  assert.is(events[events.length - 1]!.type, 'ExecutionContractFormalized');
  assert.is(executionStatus(fold(executionDecider, events)), 'WAITING_CLOSING');
  given(executionDecider, events).when(signed).then([], 'a repeated signature decides nothing');
});

test('canceled, expired or completed unsigned: the execution ends with the reason', () => {
  const history = [...toChoice(lastStepSteps), openedEvent];
  const end = (outcome: 'CANCELED' | 'EXPIRED' | 'UNSIGNED', reason: string | null) =>
    given(executionDecider, history).when({ type: 'RecordContractEnded', collectionId: COLLECTION, outcome, reason, at: AT }).decided()[0]!.data as { status: string; reason: string };
  assert.equal(end('CANCELED', 'Cliente desistiu'), { ...end('CANCELED', 'Cliente desistiu'), status: 'CANCELED', reason: OperationMessages.contractCanceled('Cliente desistiu') });
  assert.is(end('CANCELED', null).reason, 'A coleta de assinaturas do contrato foi cancelada.');
  assert.equal([end('EXPIRED', null).status, end('EXPIRED', null).reason], ['EXPIRED', OperationMessages.contractExpired]);
  assert.equal([end('EXPIRED', 'Envelope expirado no provedor').reason], ['Envelope expirado no provedor']);
  assert.equal([end('UNSIGNED', null).status, end('UNSIGNED', null).reason], ['FAILED', OperationMessages.contractCompletedUnsigned]);
});

const terms = {
  amount: 8000,
  termMonths: 12,
  monthlyRatePercent: 1.99,
  yearlyRatePercent: 26.6723,
  installment: 755.13,
  totalPayable: 9061.56,
  totalCostPercent: 13.27,
  netReleased: 7950.4,
  iof: 49.6,
  iofFinanced: false,
  fees: 0,
  cetMonthlyPercent: 2.12,
  cetYearlyPercent: 28.66,
  releaseDate: '2026-11-23',
  firstDueDate: '2027-01-31',
};
const contractFacts: ContractFacts = {
  customer: { name: 'Maria da Silva', document: '12345678909', entityType: 'PERSON' },
  productName: 'Crédito pessoal',
  model: 'PRICE',
  terms,
  parties: [
    { name: 'Maria da Silva', role: 'CLIENTE' },
    { name: 'João Souza', role: 'AVALISTA' },
  ],
  date: '2026-11-23',
};

test('fields: money and rates in Brazilian notation, due dates on the same day or the month end', () => {
  assert.equal([dueDate('2027-01-31', 2), dueDate('2027-01-31', 12), dueDate('2026-11-23', 3)], ['2027-02-28', '2027-12-31', '2027-01-23']);
  const fields = contractFields(contractFacts);
  assert.equal(
    [fields.documento, fields.valor, fields.valor_liberado, fields.taxa_mensal, fields.cet_anual, fields.primeiro_vencimento, fields.ultimo_vencimento, fields.partes],
    ['123.456.789-09', 'R$ 8.000,00', 'R$ 7.950,40', '1,99%', '28,66%', '31/01/2027', '31/12/2027', 'Maria da Silva (cliente); João Souza (avalista)'],
  );
  assert.is(fields.cronograma, '12 parcelas mensais (Price), cada uma de R$ 755,13, de 31/01/2027 a 31/12/2027; total de R$ 9.061,56.');
  assert.is(fillContract('{{nome}} deve {{ valor }}.', fields), 'Maria da Silva deve R$ 8.000,00.');
  assert.equal(unknownContractFields('{{nome}} {{cpf}} {{cpf}} {{ valor }}'), ['cpf']);
  assert.is(contractFields({ ...contractFacts, terms: { ...terms, cetYearlyPercent: null } }).cet_anual, 'não informado');
});

test('the PDF carries the filled text and the summary, and the same facts give the same bytes', async () => {
  const bytes = await renderContractPdf(`${CONTRACT.template}\nCláusula longa: ${'palavra '.repeat(2000)}🙂`, contractFacts, { title: CONTRACT.title, at: AT });
  assert.is(bytes.subarray(0, 5).toString(), '%PDF-');
  const { text, pages } = (await readPdfText(bytes))!;
  assert.ok(pages > 1, 'a long text continues on more pages');
  const flat = text.replace(/\s+/g, ' ');
  for (const expected of [
    'CÉDULA DE CRÉDITO BANCÁRIO',
    'Emitente: Maria da Silva, 123.456.789-09',
    'R$ 8.000,00 em 12 parcelas de R$ 755,13',
    'Resumo da operação',
    'CET: 2,12% ao mês (28,66% ao ano)',
    'Partes: Maria da Silva (cliente); João Souza (avalista)',
  ]) {
    assert.ok(flat.includes(expected), `missing: ${expected}`);
  }
  assert.equal(bytes, await renderContractPdf(`${CONTRACT.template}\nCláusula longa: ${'palavra '.repeat(2000)}🙂`, contractFacts, { title: CONTRACT.title, at: AT }));
});

test.run();

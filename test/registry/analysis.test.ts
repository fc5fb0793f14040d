import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { offlineAnalyser, UNREADABLE_PDF } from '../../application/registry/analysis/offline.ts';
import { assessText } from '../../domain/registry/analysis.ts';
import { JPEG_BYTES, pdfWith } from './support.ts';

const test = suite('registry: offline document analysis (the rules of docs/registry.md)');
const asOf = '2026-11-23T12:00:00.000Z';
const assess = (text: string, expectedType: Parameters<typeof assessText>[0]['expectedType'] = null, forceType: typeof expectedType = null) => assessText({ text, expectedType, forceType, asOf });

test('classification by keywords, accents and case ignored; the expected type decides VALIDO or INVALIDO', () => {
  assert.equal(assess('Contrato Social da Padaria Exemplo Ltda', 'CONTRATO_SOCIAL'), { kind: 'opinion', type: 'CONTRATO_SOCIAL', verdict: 'VALIDO', score: 0.95, reason: 'Documento identificado como CONTRATO_SOCIAL.', validUntil: null });
  assert.is((assess('Primeira alteração contratual do contrato social') as { type: string }).type, 'ALTERACAO_CONTRATUAL', 'the more specific rule first');
  assert.is((assess('COMPROVANTE DE RESIDÊNCIA') as { type: string }).type, 'COMPROVANTE_RESIDENCIA');
  assert.is((assess('Extrato bancário - conta corrente') as { score: number }).score, 0.8, 'no expected type: lower score');
  assert.equal(assess('EXTRATO BANCÁRIO', 'CONTRATO_SOCIAL'), {
    kind: 'opinion', type: 'EXTRATO_BANCARIO', verdict: 'INVALIDO', score: 0.9, reason: 'O documento foi identificado como EXTRATO_BANCARIO, mas era esperado CONTRATO_SOCIAL.', validUntil: null,
  });
  assert.equal(assess('Lista de compras do mercado', 'CONTRATO_SOCIAL'), {
    kind: 'opinion', type: 'FORA_DE_ESCOPO', verdict: 'INVALIDO', score: 0.7, validUntil: null,
    reason: 'O documento foi lido, mas não corresponde a nenhum dos tipos de documento aceitos (fora de escopo); era esperado CONTRATO_SOCIAL.',
  });
  assert.equal((assess('Cardápio do restaurante: feijoada e caipirinha') as { reason: string }).reason, 'O documento foi lido, mas não corresponde a nenhum dos tipos de documento aceitos (fora de escopo).');
  assert.equal(assess('X7 ## 0 ab', 'CONTRATO_SOCIAL'), { kind: 'opinion', type: 'NAO_IDENTIFICADO', verdict: 'INCONCLUSIVO', score: 0.3, reason: 'O tipo do documento não foi identificado pelo texto.', validUntil: null });
  assert.is((assess('Lista de compras', 'CONTRATO_SOCIAL', 'CONTRATO_SOCIAL') as { verdict: string }).verdict, 'VALIDO', 'forceType skips classification');
});

test('validity: "válido até" sets validUntil, past it INVALIDO; a proof of address is valid 90 days from its issue', () => {
  assert.equal(assess('Certidão negativa de débitos relativos aos tributos federais. Válida até 30/06/2027', 'CERTIDAO_PGFN_PJ'), {
    kind: 'opinion', type: 'CERTIDAO_PGFN_PJ', verdict: 'VALIDO', score: 0.95, reason: 'Documento identificado como CERTIDAO_PGFN_PJ.', validUntil: '2027-06-30',
  });
  assert.equal(assess('Certificado de regularidade do FGTS. Validade: 01/11/2026', 'CERTIDAO_FGTS'), {
    kind: 'opinion', type: 'CERTIDAO_FGTS', verdict: 'INVALIDO', score: 0.95, reason: 'Documento vencido em 01/11/2026.', validUntil: '2026-11-01',
  });
  assert.equal(assess('Comprovante de residência. Emitido em 01/10/2026', 'COMPROVANTE_RESIDENCIA'), {
    kind: 'opinion', type: 'COMPROVANTE_RESIDENCIA', verdict: 'VALIDO', score: 0.95, reason: 'Documento identificado como COMPROVANTE_RESIDENCIA.', validUntil: '2026-12-30',
  });
  assert.equal(assess('Conta de energia elétrica - data de emissão: 10/05/2026', 'COMPROVANTE_RESIDENCIA'), {
    kind: 'opinion', type: 'COMPROVANTE_RESIDENCIA', verdict: 'INVALIDO', score: 0.95, reason: 'Comprovante de residência emitido em 10/05/2026, há mais de 90 dias.', validUntil: '2026-08-08',
  });
  assert.is((assess('Contrato social. Válido até 31/02/2026') as { validUntil: null }).validUntil, null, 'no such day: not a date');
});

test('the offline adapter reads PDFs with pdf-parse; images have no text (manual); an unreadable PDF is a technical failure', async () => {
  const input = { expectedType: 'CONTRATO_SOCIAL' as const, forceType: null, asOf };
  const pdf = await offlineAnalyser.analyse({ ...input, mimeType: 'application/pdf', bytes: await pdfWith(['CONTRATO SOCIAL', 'Sociedade empresária limitada']) });
  assert.equal([pdf.kind, (pdf as { verdict: string }).verdict], ['opinion', 'VALIDO']);
  const image = await offlineAnalyser.analyse({ ...input, mimeType: 'image/jpeg', bytes: JPEG_BYTES });
  assert.equal([(image as { type: string }).type, (image as { verdict: string }).verdict, (image as { score: number }).score], ['CONTRATO_SOCIAL', 'ANALISE_MANUAL', 0]);
  const outOfScope = await offlineAnalyser.analyse({ ...input, mimeType: 'application/pdf', bytes: await pdfWith(['Receita de bolo de fubá', 'Misture farinha, ovos e leite']) });
  assert.equal([(outOfScope as { type: string }).type, (outOfScope as { verdict: string }).verdict], ['FORA_DE_ESCOPO', 'INVALIDO'], 'readable, no rule matches');
  const broken = await offlineAnalyser.analyse({ ...input, mimeType: 'application/pdf', bytes: Buffer.from('%PDF-1.7\nnada aqui') });
  assert.equal(broken, { kind: 'failure', reason: UNREADABLE_PDF });
});

test.run();

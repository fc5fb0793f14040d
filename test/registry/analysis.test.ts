import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { offlineAnalyser as offlineAnalyserOf, UNREAD_ANALYSER, UNREADABLE_PDF } from '../../application/registry/analysis/offline.ts';
import { ocrSettingsFor } from '../../application/document-text.ts';
import { loadConfig } from '../../config/index.ts';
import { OcrMessages } from '../../platform/ocr.ts';
import { assessText } from '../../domain/registry/analysis.ts';
import { checkSubject, nameSimilarity, NAME_SIMILARITY_THRESHOLD } from '../../domain/registry/subject.ts';
import { JPEG_BYTES, pdfWith } from './support.ts';

const test = suite('registry: offline document analysis (the rules of docs/registry.md)');
const asOf = '2026-11-23T12:00:00.000Z';
const assess = (text: string, expectedType: Parameters<typeof assessText>[0]['expectedType'] = null, forceType: typeof expectedType = null) => assessText({ text, expectedType, forceType, asOf });

test('classification by keywords, accents and case ignored; the expected type decides VALIDO or INVALIDO', () => {
  assert.equal(assess('Contrato Social da Padaria Exemplo Ltda', 'CONTRATO_SOCIAL'), {
    kind: 'opinion',
    type: 'CONTRATO_SOCIAL',
    verdict: 'VALIDO',
    score: 0.95,
    reason: 'Documento identificado como CONTRATO_SOCIAL.',
    validUntil: null,
  });
  assert.is((assess('Primeira alteração contratual do contrato social') as { type: string }).type, 'ALTERACAO_CONTRATUAL', 'the more specific rule first');
  assert.is((assess('COMPROVANTE DE RESIDÊNCIA') as { type: string }).type, 'COMPROVANTE_RESIDENCIA');
  assert.is((assess('Extrato bancário - conta corrente') as { score: number }).score, 0.8, 'no expected type: lower score');
  assert.equal(assess('EXTRATO BANCÁRIO', 'CONTRATO_SOCIAL'), {
    kind: 'opinion',
    type: 'EXTRATO_BANCARIO',
    verdict: 'INVALIDO',
    score: 0.9,
    reason: 'O documento foi identificado como EXTRATO_BANCARIO, mas era esperado CONTRATO_SOCIAL.',
    validUntil: null,
  });
  assert.equal(assess('Lista de compras do mercado', 'CONTRATO_SOCIAL'), {
    kind: 'opinion',
    type: 'FORA_DE_ESCOPO',
    verdict: 'INVALIDO',
    score: 0.7,
    validUntil: null,
    reason: 'O documento foi lido, mas não corresponde a nenhum dos tipos de documento aceitos (fora de escopo); era esperado CONTRATO_SOCIAL.',
  });
  assert.equal(
    (assess('Cardápio do restaurante: feijoada e caipirinha') as { reason: string }).reason,
    'O documento foi lido, mas não corresponde a nenhum dos tipos de documento aceitos (fora de escopo).',
  );
  assert.equal(assess('X7 ## 0 ab', 'CONTRATO_SOCIAL'), {
    kind: 'opinion',
    type: 'NAO_IDENTIFICADO',
    verdict: 'INCONCLUSIVO',
    score: 0.3,
    reason: 'O tipo do documento não foi identificado pelo texto.',
    validUntil: null,
  });
  assert.is((assess('Lista de compras', 'CONTRATO_SOCIAL', 'CONTRATO_SOCIAL') as { verdict: string }).verdict, 'VALIDO', 'forceType skips classification');
});

test('validity: "válido até" sets validUntil, past it INVALIDO; a proof of address is valid 90 days from its issue', () => {
  assert.equal(assess('Certidão negativa de débitos relativos aos tributos federais. Válida até 30/06/2027', 'CERTIDAO_PGFN_PJ'), {
    kind: 'opinion',
    type: 'CERTIDAO_PGFN_PJ',
    verdict: 'VALIDO',
    score: 0.95,
    reason: 'Documento identificado como CERTIDAO_PGFN_PJ.',
    validUntil: '2027-06-30',
  });
  assert.equal(assess('Certificado de regularidade do FGTS. Validade: 01/11/2026', 'CERTIDAO_FGTS'), {
    kind: 'opinion',
    type: 'CERTIDAO_FGTS',
    verdict: 'INVALIDO',
    score: 0.95,
    reason: 'Documento vencido em 01/11/2026.',
    validUntil: '2026-11-01',
  });
  assert.equal(assess('Comprovante de residência. Emitido em 01/10/2026', 'COMPROVANTE_RESIDENCIA'), {
    kind: 'opinion',
    type: 'COMPROVANTE_RESIDENCIA',
    verdict: 'VALIDO',
    score: 0.95,
    reason: 'Documento identificado como COMPROVANTE_RESIDENCIA.',
    validUntil: '2026-12-30',
  });
  assert.equal(assess('Conta de energia elétrica - data de emissão: 10/05/2026', 'COMPROVANTE_RESIDENCIA'), {
    kind: 'opinion',
    type: 'COMPROVANTE_RESIDENCIA',
    verdict: 'INVALIDO',
    score: 0.95,
    reason: 'Comprovante de residência emitido em 10/05/2026, há mais de 90 dias.',
    validUntil: '2026-08-08',
  });
  assert.is((assess('Contrato social. Válido até 31/02/2026') as { validUntil: null }).validUntil, null, 'no such day: not a date');
});

test('the offline adapter reads PDFs with pdf-parse; an image without Tesseract goes to manual review saying why; an unreadable PDF is a technical failure', async () => {
  // OCR pointed at a binary that is not there: the image cannot be read here.
  const offlineAnalyser = offlineAnalyserOf(ocrSettingsFor(loadConfig({ OCR_TESSERACT_PATH: '/nonexistent/tesseract' })));
  const input = { expectedType: 'CONTRATO_SOCIAL' as const, forceType: null, asOf, subject: null };
  const pdf = await offlineAnalyser.analyse({ ...input, mimeType: 'application/pdf', bytes: await pdfWith(['CONTRATO SOCIAL', 'Sociedade empresária limitada']) });
  assert.equal([pdf.kind, (pdf as { verdict: string }).verdict], ['opinion', 'VALIDO']);
  const image = await offlineAnalyser.analyse({ ...input, mimeType: 'image/jpeg', bytes: JPEG_BYTES });
  assert.equal(image, {
    kind: 'opinion',
    type: 'CONTRATO_SOCIAL',
    verdict: 'ANALISE_MANUAL',
    score: 0,
    reason: OcrMessages.tesseractMissing,
    validUntil: null,
    provenance: { provider: UNREAD_ANALYSER, sandbox: false },
  });
  const outOfScope = await offlineAnalyser.analyse({ ...input, mimeType: 'application/pdf', bytes: await pdfWith(['Receita de bolo de fubá', 'Misture farinha, ovos e leite']) });
  assert.equal([(outOfScope as { type: string }).type, (outOfScope as { verdict: string }).verdict], ['FORA_DE_ESCOPO', 'INVALIDO'], 'readable, no rule matches');
  const broken = await offlineAnalyser.analyse({ ...input, mimeType: 'application/pdf', bytes: Buffer.from('%PDF-1.7\nnada aqui') });
  assert.equal(broken, { kind: 'failure', reason: UNREADABLE_PDF });
});

test('the subject: named by CNPJ/CPF in any formatting or by name (token similarity); another CNPJ is someone else; nobody named is inconclusive', () => {
  const company = { document: '11222333000181', name: 'Padaria Exemplo Ltda' };
  const person = { document: '52998224725', name: 'Maria da Silva Exemplo' };
  for (const written of ['CNPJ 11.222.333/0001-81', 'CNPJ: 11222333000181', 'inscrita no CNPJ sob o nº 11 222 333 0001 81', 'CNPJ 11.222.333/0002-62 (filial)']) {
    assert.equal(checkSubject(written, company), { kind: 'named', by: 'DOCUMENT' }, written);
  }
  assert.equal(checkSubject('CONTRATO SOCIAL da Outra Empresa S.A., CNPJ 45.723.174/0001-10', company), { kind: 'someone-else' });
  assert.equal(
    checkSubject('CONTRATO SOCIAL da EXEMPLO PADARIA LTDA; sócia Maria, CPF 529.982.247-25', company),
    { kind: 'named', by: 'NAME', similarity: 1 },
    "a partner's CPF is not another company",
  );
  assert.equal(checkSubject('Holerite de SILVA EXEMPLO, MARIA DA — empregador CNPJ 11.222.333/0001-81', person), { kind: 'named', by: 'NAME', similarity: 1 }, "word order, an employer's CNPJ");
  assert.equal(checkSubject('Holerite de MARIA SILVA EXEMPIO', person), { kind: 'named', by: 'NAME', similarity: 1 }, 'a letter misread by OCR');
  assert.equal(checkSubject('Holerite de MARIA SOUZA', person), { kind: 'not-named' }, 'one token of three is below the threshold');
  assert.ok(nameSimilarity('Maria da Silva Exemplo', 'MARIA SOUZA') < NAME_SIMILARITY_THRESHOLD);
  assert.equal(checkSubject('Holerite de JOAO NINGUEM, CPF 111.444.777-35', person), { kind: 'someone-else' });

  const opinion = (text: string) => assessText({ text, expectedType: 'CONTRATO_SOCIAL', forceType: null, asOf, subject: company });
  assert.equal(opinion('CONTRATO SOCIAL da Outra Empresa S.A., CNPJ 45.723.174/0001-10'), {
    kind: 'opinion',
    type: 'CONTRATO_SOCIAL',
    verdict: 'INVALIDO',
    score: 0.9,
    validUntil: null,
    reason: 'O documento identificado como CONTRATO_SOCIAL menciona outro CNPJ, não o do titular do cadastro: é de outra pessoa ou empresa.',
  });
  assert.equal(opinion('CONTRATO SOCIAL sem nome algum'), {
    kind: 'opinion',
    type: 'CONTRATO_SOCIAL',
    verdict: 'INCONCLUSIVO',
    score: 0.5,
    validUntil: null,
    reason: 'O documento identificado como CONTRATO_SOCIAL não menciona o titular do cadastro (nem o CNPJ nem o nome): é preciso conferir.',
  });
  assert.is((opinion('CONTRATO SOCIAL da Padaria Exemplo Ltda') as { verdict: string }).verdict, 'VALIDO');
});

test.run();

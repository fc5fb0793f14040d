import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BrasilApiCatalog } from '../../application/report/sources/brasilapi.ts';
import { runSource } from '../../application/report/sources/run-source.ts';
import { SandboxCatalog } from '../../application/report/sources/sandbox.ts';
import type { TaxDocument } from '../../domain/shared/document.ts';

const test = suite('BrasilAPI CNPJ source');
const BASE = 'https://brasilapi.test';
const NOW = new Date('2026-03-01T12:00:00Z');
const CNPJ: TaxDocument = { type: 'cnpj', digits: '19131243000197' };

// Shaped like a real reply of GET /api/cnpj/v1/{cnpj} (fields trimmed to those we read plus a few we ignore).
const RECORDED = {
  uf: 'SP',
  cep: '01311902',
  qsa: [{ pais: null, nome_socio: 'FERNANDA CAMPAGNUCCI PEREIRA', codigo_pais: null, faixa_etaria: 'Entre 31 a 40 anos', qualificacao_socio: 'Presidente' }],
  cnpj: '19131243000197',
  pais: null,
  email: null,
  porte: 'DEMAIS',
  bairro: 'BELA VISTA',
  numero: '37',
  ddd_fax: '',
  municipio: 'SAO PAULO',
  logradouro: 'PAULISTA 37',
  cnae_fiscal: 9430800,
  complemento: 'ANDAR 4',
  razao_social: 'OPEN KNOWLEDGE BRASIL',
  nome_fantasia: 'REDE PELO CONHECIMENTO LIVRE',
  capital_social: 0,
  ddd_telefone_1: '1123851939',
  natureza_juridica: 'Associação Privada',
  situacao_cadastral: 2,
  opcao_pelo_simples: false,
  data_inicio_atividade: '2013-10-03',
  data_situacao_cadastral: '2013-10-03',
  cnae_fiscal_descricao: 'Atividades de associações de defesa de direitos sociais',
  descricao_situacao_cadastral: 'ATIVA',
  descricao_tipo_de_logradouro: 'AVENIDA',
};

const catalog = new BrasilApiCatalog(BASE, new SandboxCatalog());
const ask = (type: 'BASIC_INFORMATION' | 'LOCATION', timeoutMs = 500, document = CNPJ) =>
  runSource(catalog.providerFor(type, document), { reportId: 'r', organizationId: 'o', document, now: NOW }, timeoutMs, () => NOW);

test.before(() => {
  nock.disableNetConnect();
});
test.after.each(() => {
  nock.cleanAll();
});
test.after(() => {
  nock.enableNetConnect();
});

test('200: one request feeds BASIC_INFORMATION and LOCATION, normalized', async () => {
  const scope = nock(BASE).get('/api/cnpj/v1/19131243000197').once().reply(200, RECORDED);
  const [basic, location] = await Promise.all([ask('BASIC_INFORMATION'), ask('LOCATION')]);
  assert.ok(scope.isDone());
  assert.is(basic.outcome, 'DONE');
  assert.equal(basic.selectedIntegrations, ['BRASILAPI']);
  assert.equal(basic.details, {
    name: 'OPEN KNOWLEDGE BRASIL',
    tradeName: 'REDE PELO CONHECIMENTO LIVRE',
    foundedAt: '2013-10-03',
    companyAgeYears: 12,
    registrationStatus: 'ATIVA',
    registrationStatusDate: '2013-10-03',
    legalNature: 'Associação Privada',
    size: 'DEMAIS',
    shareCapitalCents: 0,
    simplesNacional: false,
    mainActivity: { code: '9430800', description: 'Atividades de associações de defesa de direitos sociais' },
    partners: [{ name: 'FERNANDA CAMPAGNUCCI PEREIRA', role: 'Presidente' }],
  });
  assert.equal(location.details, {
    street: 'AVENIDA PAULISTA 37',
    number: '37',
    complement: 'ANDAR 4',
    district: 'BELA VISTA',
    city: 'SAO PAULO',
    state: 'SP',
    zipCode: '01311902',
    country: 'BR',
  });
});

const failures: Array<[string, (scope: nock.Interceptor) => nock.Scope, string]> = [
  ['404 is INTEGRATION_NO_DATA', (i) => i.reply(404, { message: 'CNPJ 19.131.243/0001-97 não encontrado.', type: 'not_found', name: 'NotFoundError' }), 'INTEGRATION_NO_DATA'],
  ['400 is INTEGRATION_INVALID_DOCUMENT', (i) => i.reply(400, { message: 'CNPJ 19131243000197 inválido.', type: 'bad_request', name: 'BadRequestError' }), 'INTEGRATION_INVALID_DOCUMENT'],
  ['500 is INTEGRATION_UNAVAILABLE', (i) => i.reply(500, { message: 'Internal error' }), 'INTEGRATION_UNAVAILABLE'],
  ['503 is INTEGRATION_UNAVAILABLE', (i) => i.reply(503, 'Service Unavailable'), 'INTEGRATION_UNAVAILABLE'],
  ['429 is INTEGRATION_UNAVAILABLE', (i) => i.reply(429, { message: 'Too many requests' }), 'INTEGRATION_UNAVAILABLE'],
  ['a body that is not the company is INTEGRATION_UNAVAILABLE', (i) => i.reply(200, '<html>maintenance</html>'), 'INTEGRATION_UNAVAILABLE'],
  ['a network error is INTEGRATION_UNAVAILABLE', (i) => i.replyWithError({ code: 'ECONNRESET', message: 'socket hang up' }), 'INTEGRATION_UNAVAILABLE'],
];
for (const [name, reply, code] of failures) {
  test(name, async () => {
    reply(nock(BASE).get('/api/cnpj/v1/19131243000197'));
    const result = await ask('BASIC_INFORMATION');
    assert.is(result.outcome, 'ERROR');
    assert.is(result.errors[0]!.code, code);
    assert.is(result.errors[0]!.integrationId, 'brasilapi-cnpj');
    assert.is(result.errors[0]!.integrationType, 'BRASILAPI');
  });
}

test('a reply slower than SOURCE_TIMEOUT_MS is INTEGRATION_TIMEOUT', async () => {
  nock(BASE).get('/api/cnpj/v1/19131243000197').delay(1_000).reply(200, RECORDED);
  const started = Date.now();
  const result = await ask('LOCATION', 100);
  assert.is(result.errors[0]!.code, 'INTEGRATION_TIMEOUT');
  assert.ok(Date.now() - started < 900, 'gave up at the deadline');
});

test('CPFs and other sections stay on the sandbox', async () => {
  assert.is(catalog.providerFor('BASIC_INFORMATION', { type: 'cpf', digits: '12345678909' }).integrationType, 'SANDBOX');
  assert.is(catalog.providerFor('PROTESTS', CNPJ).integrationType, 'SANDBOX');
  const result = await ask('BASIC_INFORMATION', 500, { type: 'cpf', digits: '12345678909' });
  assert.is(result.outcome, 'DONE');
});

test.run();

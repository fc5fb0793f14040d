import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sectionLines } from '../../application/report/export/exportable.ts';
import { formatInstant, formatValue, valueOf } from '../../application/report/export/pt-br.ts';
import { formatBRL } from '../../domain/shared/money.ts';

const test = suite('report exports: Portuguese labels and Brazilian formats');

const shown = (key: string, raw: unknown) => formatValue(valueOf(key, raw));

test("Node's ICU writes reais and Brasília time in pt-BR", () => {
  assert.is(formatBRL(123456), 'R$ 1.234,56');
  assert.is(formatBRL(-5), '-R$ 0,05');
  assert.is(formatBRL(165_000_000_00), 'R$ 165.000.000,00');
  assert.is(formatInstant(new Date('2026-01-02T03:04:59Z')), '02/01/2026 00:04');
  assert.is(formatInstant(new Date('2026-01-01T02:30:00Z')), '31/12/2025 23:30', 'the Brasília day, not the UTC one');
});

test('section values by kind: money in cents, days without a zone shift, months, booleans, counts and years', () => {
  assert.is(shown('amountCents', 150), 'R$ 1,50');
  assert.is(shown('foundedAt', '2006-04-04'), '04/04/2006');
  assert.is(shown('referenceMonth', '2026-09'), '09/2026');
  assert.is(shown('issuedAt', '2026-03-01T12:00:00.000Z'), '01/03/2026 09:00');
  assert.is(shown('deceased', false), 'Não');
  assert.is(shown('allClear', true), 'Sim');
  assert.is(shown('referenceYear', 2025), '2025');
  assert.is(shown('totalCount', 12345), '12.345');
  assert.is(shown('ratio', 0.125), '0,13');
  assert.is(shown('complement', null), '-');
});

test('known fields get their Portuguese label; a company is named by its corporate name, a partner by name', () => {
  const lines = sectionLines({ type: 'BASIC_INFORMATION', details: { partners: [{ role: 'Sócio', name: 'Ana' }], shareCapitalCents: 100, name: 'Alfa Ltda' } }, 'cnpj');
  assert.equal(
    lines.map((l) => [l.path.join(' › '), l.value && formatValue(l.value)]),
    [
      ['Razão social', 'Alfa Ltda'],
      ['Capital social', 'R$ 1,00'],
      ['Sócios', null],
      ['Sócios › Sócio 1', null],
      ['Sócios › Sócio 1 › Nome', 'Ana'],
      ['Sócios › Sócio 1 › Qualificação', 'Sócio'],
    ],
  );
  assert.is(sectionLines({ type: 'BASIC_INFORMATION', details: { name: 'Ana' } }, 'cpf')[0]!.path[0], 'Nome');
});

test('unknown keys are humanized and still typed; lists are numbered and cut; never JSON', () => {
  const lines = sectionLines(
    {
      type: 'SANCTIONS',
      details: { novoCampoDaFonte: { valorPendenteCents: 2500, ultima_consulta: '2026-02-03' }, tags: ['A', 'B'], records: Array.from({ length: 23 }, (_, i) => ({ list: `L${i}` })) },
    },
    'cpf',
  );
  const text = lines.map((l) => `${l.path.join(' › ')} = ${l.value ? formatValue(l.value) : ''}`);
  assert.ok(text.includes('Novo campo da fonte › Valor pendente = R$ 25,00'), text.join('\n'));
  assert.ok(text.includes('Novo campo da fonte › Ultima consulta = 03/02/2026'));
  assert.ok(text.includes('Tags = A, B'));
  assert.ok(text.includes('Registros › Registro 20 › List = L19'));
  assert.not.ok(text.some((line) => line.includes('Registro 21')));
  assert.ok(text.includes('Registros › Outros = e mais 3'));
  assert.not.ok(text.some((line) => /[{}"]/.test(line)));
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SANDBOX_DOCUMENTS } from '../../application/report/sources/sandbox-documents.ts';
import { formatDocument, hasValidCheckDigits, parseDocument } from '../../domain/shared/document.ts';
import { Messages } from '../../domain/shared/messages.ts';
import { assertRefused } from '../support/decider.ts';

const test = suite('CPF and CNPJ');

test('accepts digits or the usual masks and keeps digits only', () => {
  assert.equal(parseDocument('123.456.789-09', 'cpf'), { type: 'cpf', digits: '12345678909' });
  assert.equal(parseDocument('11.222.333/0001-81', 'cnpj'), { type: 'cnpj', digits: '11222333000181' });
  assert.equal(parseDocument('11222333000181', 'cnpj').digits, '11222333000181');
});

test('wrong check digits, repeated digits, letters and odd lengths are Documento inválido.', () => {
  for (const [text, type] of [
    ['12345678900', 'cpf'],
    ['11111111111', 'cpf'],
    ['11222333000180', 'cnpj'],
    ['00000000000000', 'cnpj'],
    ['1234567890a', 'cpf'],
    ['1234567890', 'cpf'],
    ['', 'cnpj'],
  ] as const) {
    assertRefused(() => parseDocument(text, type), 'invalid', Messages.invalidDocument);
  }
});

test('a length of the other type is Tipo de documento inválido.', () => {
  assertRefused(() => parseDocument('11222333000181', 'cpf'), 'invalid', Messages.invalidDocumentType);
  assertRefused(() => parseDocument('12345678909', 'cnpj'), 'invalid', Messages.invalidDocumentType);
});

test('every sandbox test document has valid check digits', () => {
  for (const d of SANDBOX_DOCUMENTS) assert.ok(hasValidCheckDigits(d.type, d.document), d.document);
});

test('formats for people', () => {
  assert.is(formatDocument({ type: 'cpf', digits: '12345678909' }), '123.456.789-09');
  assert.is(formatDocument({ type: 'cnpj', digits: '11222333000181' }), '11.222.333/0001-81');
});

test.run();

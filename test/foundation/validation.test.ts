import Type from 'typebox';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../http/errors.ts';
import { validateBody, validateText, validationMessage } from '../../http/validation.ts';

const test = suite('validation messages');

const ReportBody = Type.Object({
  document: Type.String({ minLength: 1 }),
  type: Type.Union([Type.Literal('cpf'), Type.Literal('cnpj')]),
  policyId: Type.Optional(Type.String()),
});

test('missing fields and a bad enum join with commas, in the contract style', () => {
  assert.is(validationMessage(ReportBody, { type: 'rg' }), 'document should not be empty,type must be one of the following values: cpf, cnpj');
  assert.is(validationMessage(ReportBody, { document: '', type: 'cpf' }), 'document should not be empty');
});

test('lengths, counts and numbers', () => {
  const Cancel = Type.Object({ reason: Type.String({ maxLength: 500 }) });
  assert.is(validationMessage(Cancel, { reason: 'x'.repeat(501) }), 'reason must be shorter than or equal to 500 characters');
  const Files = Type.Object({ files: Type.Array(Type.String(), { minItems: 1, maxItems: 10 }) });
  assert.is(validationMessage(Files, { files: [] }), 'files must contain at least 1 elements');
  assert.is(validationMessage(Files, { files: Array(11).fill('a') }), 'files must contain no more than 10 elements');
  const Amount = Type.Object({ n: Type.Integer({ minimum: 1 }) });
  assert.is(validationMessage(Amount, { n: 1.5 }), 'n must be an integer number');
  assert.is(validationMessage(Amount, { n: 0 }), 'n must not be less than 1');
});

test('a fixed contract text is prefixed with the path of the object holding the field', () => {
  const Presign = Type.Object({
    files: Type.Array(Type.Object({ name: Type.String({ pattern: '\\.pdf$', errorMessage: 'Apenas arquivos PDF são aceitos.' }) })),
  });
  assert.is(validationMessage(Presign, { files: [{ name: 'a.pdf' }, { name: 'b.doc' }] }), 'files.1.Apenas arquivos PDF são aceitos.');
  const Top = Type.Object({ from: Type.String({ format: 'date-time', errorMessage: 'A data inicial precisa estar no formato ISO.' }) });
  assert.is(validationMessage(Top, { from: 'ontem' }), 'A data inicial precisa estar no formato ISO.');
});

test('a fixed text shared by several failing fields is said once', () => {
  const fixed = { errorMessage: 'URL de webhook inválida.' };
  const Hook = Type.Object({ type: Type.String({ minLength: 1, ...fixed }), url: Type.String({ minLength: 1, ...fixed }) });
  assert.is(validationMessage(Hook, {}), 'URL de webhook inválida.');
});

test('bodies drop unknown fields (organizationId from a body never reaches a handler)', () => {
  const body = validateBody(ReportBody, { document: '1', type: 'cpf', organizationId: 'x', userId: 'y' });
  assert.equal(body, { document: '1', type: 'cpf' });
});

test('query text is converted and defaulted before validation', () => {
  const Query = Type.Object({ page: Type.Integer({ minimum: 1, default: 1 }), details: Type.Optional(Type.Boolean()) });
  assert.equal(validateText(Query, { details: 'false' }), { page: 1, details: false });
  try {
    validateText(Query, { page: '0' });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, HttpError);
    assert.is((error as HttpError).status, 400);
    assert.is((error as HttpError).message, 'page must not be less than 1');
  }
});

test.run();

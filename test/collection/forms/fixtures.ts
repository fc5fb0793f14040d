import { createHash } from 'node:crypto';
import type { ConsentConfig } from '../../../domain/collection/kinds/consent.ts';
import type { FormDefinition, FormField } from '../../../domain/collection/kinds/form.ts';

/** A company form: a required number in range, a choice, a pattern, a date and a yes/no. */
export const field = (key: string, extra: Partial<FormField> = {}): FormField => ({ key, label: key, type: 'STRING', required: false, choices: null, validation: null, ...extra });

export const companyForm = (): FormDefinition => ({
  fields: [
    field('faturamento', { label: 'Faturamento mensal', type: 'NUMBER', required: true, validation: { min: 0, max: 100000000 } }),
    field('setor', { label: 'Setor', choices: ['comercio', 'industria', 'servicos'] }),
    field('cep', { label: 'CEP', validation: { pattern: '^[0-9]{5}-?[0-9]{3}$' } }),
    field('data_fundacao', { label: 'Data de fundação', type: 'DATE' }),
    field('exporta', { label: 'Exporta', type: 'BOOLEAN' }),
    field('razao_social', { label: 'Razão social' }),
  ],
});

const TERM = 'Autorizo a consulta ao SCR do Banco Central em meu nome.';
export const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
export const scrTerm = (text = TERM): ConsentConfig => ({ type: 'scr', version: 2, text, hash: sha256(text) });

import type { ExpectedDocumentType } from '../collection/enums.ts';
import { consentInputKey } from '../collection/kinds/consent.ts';
import { formInputKey, type FormField } from '../collection/kinds/form.ts';

/**
 * The input data fields (spec: Input data field and keys): what a proposal's input data carries
 * and what the credit policy's rules read as `inputs.<key>`. The key's prefix tells its origin.
 */
export type InputType = 'NUMBER' | 'STRING' | 'BOOLEAN' | 'DATE';
export type InputSource = 'PROPOSAL' | 'FORM' | 'DOCUMENT' | 'VERIFICATION';
export type InputScalar = number | string | boolean | null;

export const INPUT_GROUPS: Readonly<Record<InputSource, string>> = { PROPOSAL: 'Proposta', FORM: 'Formulário', DOCUMENT: 'Documentos', VERIFICATION: 'Verificações' };

export interface InputField {
  key: string;
  label: string;
  type: InputType;
  source: InputSource;
  group: string;
}

const field = (key: string, label: string, type: InputType, source: InputSource): InputField => ({ key, label, type, source, group: INPUT_GROUPS[source] });

/** The spec's proposal keys, in its order. */
export const PROPOSAL_FIELDS: readonly InputField[] = [
  field('proposta.valor_pedido', 'Valor pedido (R$)', 'NUMBER', 'PROPOSAL'),
  field('proposta.prazo_pedido', 'Prazo pedido (meses)', 'NUMBER', 'PROPOSAL'),
  field('proposta.produto', 'Produto', 'STRING', 'PROPOSAL'),
  field('proposta.carteira', 'Carteira', 'STRING', 'PROPOSAL'),
  field('proposta.tipo', 'Tipo da proposta', 'STRING', 'PROPOSAL'),
  field('proposta.origem', 'Origem', 'STRING', 'PROPOSAL'),
  field('proposta.tipo_pessoa', 'Tipo de pessoa (PJ ou PF)', 'STRING', 'PROPOSAL'),
  field('proposta.participantes_qtd', 'Participantes', 'NUMBER', 'PROPOSAL'),
  field('proposta.avalistas_qtd', 'Avalistas', 'NUMBER', 'PROPOSAL'),
];

export const IDENTITY_FIELD = field('kyc.identidade_aprovada', 'Identidade aprovada', 'BOOLEAN', 'VERIFICATION');

/** A FORM field of a template (or of an ad hoc form: slug null), labelled with the form it is in. */
export const formField = (templateSlug: string | null, formName: string, f: Pick<FormField, 'key' | 'label' | 'type'>): InputField =>
  field(formInputKey(templateSlug, f.key), `${f.label} (${formName})`, f.type, 'FORM');

export const consentField = (type: string): InputField => field(consentInputKey(type), `Consentimento ${type} aceito`, 'BOOLEAN', 'VERIFICATION');

/**
 * What the document analysis reads of a document type, per collection: the latest opinion's
 * verdict, whether it is VALIDO, and two lists over the files of that type, the files
 * themselves and their analysis scores. A list is offered as `<field>_qtd` (its length) and, when
 * numeric, also as `<field>_soma` (its sum), as the spec says for document keys.
 */
export const DOCUMENT_FIELDS = [
  { name: 'veredito', label: 'Parecer da análise', type: 'STRING' },
  { name: 'valido', label: 'Documento válido', type: 'BOOLEAN' },
  { name: 'arquivos', label: 'Arquivos', list: 'ANY' },
  { name: 'score', label: 'Pontuação da análise', list: 'NUMBER' },
] as const satisfies ReadonlyArray<{ name: string; label: string; type?: InputType; list?: 'ANY' | 'NUMBER' }>;

export type DocumentFieldName = (typeof DOCUMENT_FIELDS)[number]['name'];

/** The keys of one document field: itself, or a list's `_qtd` and, for numbers, `_soma`. */
function documentKeys(type: ExpectedDocumentType, f: (typeof DOCUMENT_FIELDS)[number]): InputField[] {
  const prefix = `doc.${type}.${f.name}`;
  if (!('list' in f)) return [field(prefix, `${f.label} (${type})`, f.type, 'DOCUMENT')];
  const count = field(`${prefix}_qtd`, `${f.label}: quantidade (${type})`, 'NUMBER', 'DOCUMENT');
  return f.list === 'NUMBER' ? [count, field(`${prefix}_soma`, `${f.label}: soma (${type})`, 'NUMBER', 'DOCUMENT')] : [count];
}

export const documentFields = (type: ExpectedDocumentType): InputField[] => DOCUMENT_FIELDS.flatMap((f) => documentKeys(type, f));

/** Document types the analysis names but that say nothing about a document: no keys. */
export const UNKEYED_DOCUMENT_TYPES: readonly ExpectedDocumentType[] = ['FORA_DE_ESCOPO', 'NAO_IDENTIFICADO'];

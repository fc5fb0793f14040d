import type { CollectionState, ItemState } from '../collection/state.ts';
import type { FormValue } from '../collection/kinds/form.ts';
import type { ProposalState } from '../proposal/state.ts';
import { consentField, documentFields, formField, IDENTITY_FIELD, PROPOSAL_FIELDS, UNKEYED_DOCUMENT_TYPES, type InputField, type InputScalar, type InputType } from './fields.ts';

/** One field of a proposal's input data: its value (null when unreadable) and where it came from. */
export interface InputValue extends InputField {
  value: InputScalar;
  /** The proposal's id, or the collection's that answered the key. */
  sourceId: string;
}

/** The version of these assembly rules: a change of keys or of how a value is read bumps it. */
export const INPUT_DATA_VERSION = 1;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A value as its declared type, or null when it is not one (an answer of another type, an erased one). */
export function readable(type: InputType, value: unknown): InputScalar {
  switch (type) {
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'STRING':
      return typeof value === 'string' ? value : null;
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : null;
    case 'DATE':
      return typeof value === 'string' && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value) ? value : null;
  }
}

/** The spec's proposal keys. Amounts in reais; the product's fixed value when nothing was requested. */
export function proposalValues(proposal: ProposalState): InputValue[] {
  const created = proposal.created!;
  const cents = created.requestedAmountCents ?? created.fixedAmountCents;
  const raw: Record<string, unknown> = {
    'proposta.valor_pedido': cents === null ? null : cents / 100,
    'proposta.prazo_pedido': created.requestedTermMonths,
    'proposta.produto': created.productKey,
    'proposta.carteira': created.portfolioName,
    'proposta.tipo': created.kind,
    'proposta.origem': created.origin,
    'proposta.tipo_pessoa': created.entityType === 'COMPANY' ? 'PJ' : 'PF',
    'proposta.participantes_qtd': proposal.participants.length,
    'proposta.avalistas_qtd': proposal.participants.filter((p) => p.role === 'GUARANTOR').length,
  };
  return PROPOSAL_FIELDS.map((f) => ({ ...f, value: readable(f.type, raw[f.key]), sourceId: created.proposalId }));
}

type Found = Array<{ field: InputField; value: unknown }>;

function formValues(state: CollectionState, item: ItemState): Found {
  const answers: Record<string, FormValue> = item.details.form?.answers ?? {};
  const formName = state.template?.name ?? item.title;
  return (item.config?.form?.fields ?? []).filter((f) => f.key in answers).map((f) => ({ field: formField(state.template?.slug ?? null, formName, f), value: answers[f.key] }));
}

function documentValues(items: readonly ItemState[]): Found {
  const byType = new Map<string, { verdicts: string[]; scores: number[]; files: number }>();
  for (const item of items) {
    for (const file of item.files) {
      const type = file.opinion?.type;
      if (!type || UNKEYED_DOCUMENT_TYPES.includes(type)) continue;
      const entry = byType.get(type) ?? { verdicts: [], scores: [], files: 0 };
      entry.files += 1;
      if (file.opinion?.verdict) entry.verdicts.push(file.opinion.verdict);
      if (typeof file.opinion?.score === 'number') entry.scores.push(file.opinion.score);
      byType.set(type, entry);
    }
  }
  return [...byType].flatMap(([type, entry]) => {
    const verdict = entry.verdicts.at(-1) ?? null;
    const values: Record<string, unknown> = {
      veredito: verdict,
      valido: verdict === null ? null : verdict === 'VALIDO',
      arquivos_qtd: entry.files,
      score_qtd: entry.scores.length,
      score_soma: entry.scores.reduce((sum, s) => sum + s, 0),
    };
    return documentFields(type as Parameters<typeof documentFields>[0]).map((f) => ({ field: f, value: values[f.key.slice(f.key.lastIndexOf('.') + 1)] }));
  });
}

/**
 * What one collection answers, key by key: its forms' answers (FORM), its accepted consents and
 * its latest identity check (VERIFICATION), and the opinions on its documents (DOCUMENT).
 */
export function collectionValues(state: CollectionState): Found {
  const found: Found = [];
  for (const item of state.items) {
    if (item.details.form) found.push(...formValues(state, item));
    if (item.details.consent && item.config?.consent) found.push({ field: consentField(item.config.consent.type), value: true });
    const checks = item.details.identity?.checks ?? [];
    if (checks.length) found.push({ field: IDENTITY_FIELD, value: checks.at(-1)!.verdict === 'APROVADO' });
  }
  return [...found, ...documentValues(state.items)];
}

export interface AssembledInputData {
  collectionIds: string[];
  fields: InputValue[];
}

/**
 * The proposal's input data: its own keys, then each key any linked completed collection
 * answers, the most recently completed one winning (ties: the higher id). Fields are sorted by
 * key after the proposal's; collectionIds are those that gave at least one field, newest first.
 */
export function assembleInputData(proposal: ProposalState, collections: readonly CollectionState[]): AssembledInputData {
  const newestFirst = [...collections].sort((a, b) => (b.completedAt ?? '').localeCompare(a.completedAt ?? '') || (b.collectionId ?? '').localeCompare(a.collectionId ?? ''));
  const won = new Map<string, InputValue>();
  for (const collection of newestFirst) {
    for (const { field, value } of collectionValues(collection)) {
      if (!won.has(field.key)) won.set(field.key, { ...field, value: readable(field.type, value), sourceId: collection.collectionId! });
    }
  }
  const collected = [...won.values()].sort((a, b) => a.key.localeCompare(b.key));
  const contributed = new Set(collected.map((f) => f.sourceId));
  return {
    collectionIds: newestFirst.map((c) => c.collectionId!).filter((id) => contributed.has(id)),
    fields: [...proposalValues(proposal), ...collected],
  };
}

/** What the hash covers: the version and each key's value (not where it came from nor when it was read). */
export const hashedContent = (fields: readonly InputValue[]) => ({ version: INPUT_DATA_VERSION, values: Object.fromEntries(fields.map((f) => [f.key, f.value])) });

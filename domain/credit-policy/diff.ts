import type { PolicyContent } from './policy.ts';

/** One difference between two versions, as a reviewer reads it: what, where, before and after. */
export interface PolicyChange {
  kind: 'added' | 'removed' | 'changed';
  /** Rule, score factor, cut-off, section queried, failure status, name... */
  what: string;
  /** The rule's group, the factor's label: where to find it. */
  where: string;
  before: unknown;
  after: unknown;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Items matched by id: added, removed, or changed in what `shown` picks. */
function byId<T extends { id: string }>(what: string, before: readonly T[], after: readonly T[], where: (item: T) => string, shown: (item: T) => unknown): PolicyChange[] {
  const old = new Map(before.map((item) => [item.id, item]));
  const changes: PolicyChange[] = [];
  for (const item of after) {
    const previous = old.get(item.id);
    old.delete(item.id);
    if (!previous) changes.push({ kind: 'added', what, where: where(item), before: null, after: shown(item) });
    else if (!same(shown(previous), shown(item))) changes.push({ kind: 'changed', what, where: where(item), before: shown(previous), after: shown(item) });
  }
  for (const item of old.values()) changes.push({ kind: 'removed', what, where: where(item), before: shown(item), after: null });
  return changes;
}

/**
 * What changed from one version to another: rules (matched by their stable ids, so a renamed rule
 * is a change, not a removal and an addition), score factors, cut-offs, the sections queried, the
 * failure statuses, name and description. Empty when the versions decide alike.
 */
export function diffPolicies(before: PolicyContent, after: PolicyContent): PolicyChange[] {
  const rules = (content: PolicyContent) => content.groups.flatMap((group) => group.rules.map((rule) => ({ ...rule, group: group.name })));
  const changes: PolicyChange[] = [];
  for (const field of ['name', 'description'] as const) {
    if (before[field] !== after[field]) changes.push({ kind: 'changed', what: field === 'name' ? 'nome' : 'descrição', where: '', before: before[field], after: after[field] });
  }
  for (const field of ['base', 'min', 'max', 'approveFrom', 'denyBelow'] as const) {
    if (before.score[field] !== after.score[field]) changes.push({ kind: 'changed', what: `score: ${field}`, where: '', before: before.score[field], after: after.score[field] });
  }
  const sections = (content: PolicyContent) => content.sections.map((type) => ({ id: type }));
  changes.push(
    ...byId(
      'seção consultada',
      sections(before),
      sections(after),
      (s) => s.id,
      (s) => s.id,
    ),
  );
  changes.push(
    ...byId(
      'regra',
      rules(before),
      rules(after),
      (r) => r.group,
      (r) => ({ name: r.name, condition: r.condition, onFail: r.onFail, description: r.description }),
    ),
  );
  changes.push(
    ...byId(
      'fator de score',
      before.score.factors,
      after.score.factors,
      (f) => f.label,
      (f) => ({ label: f.label, when: f.when, points: f.points }),
    ),
  );
  for (const [code, status] of Object.entries(after.sourceErrors)) {
    const previous = before.sourceErrors[code as keyof PolicyContent['sourceErrors']];
    if (previous !== status) changes.push({ kind: 'changed', what: 'falha de fonte', where: code, before: previous ?? null, after: status });
  }
  return changes;
}

import { DomainError } from '../shared/errors.ts';
import { SECTION_TYPES, sectionAppliesTo } from '../report/sections.ts';
import { DOCUMENT_NAMESPACE, INPUTS_NAMESPACE, POINTS_BOUNDS, SCORE_BOUNDS, type JsonLogic, type PolicyContent } from './policy.ts';
import { boundsProblem, compileProblem, forbiddenOperatorOf, variablesOf } from './rule-engine.ts';

/**
 * The meaning checks of a policy, beyond the shape the HTTP schema checks: a policy that is
 * saved must be able to run. Texts are ours (the spec shows no policy record).
 */
const label = (documentType: string) => documentType.toUpperCase();

function refuse(message: string): never {
  throw new DomainError('invalid', message);
}

function checkExpression(where: string, logic: JsonLogic, readable: ReadonlySet<string>): void {
  // Before anything builds or walks the expression further: building evaluates its constant parts.
  const tooLarge = boundsProblem(logic);
  if (tooLarge) refuse(`${where} ${tooLarge}.`);
  const forbidden = forbiddenOperatorOf(logic);
  if (forbidden) refuse(`${where}: o operador "${forbidden}" não é aceito em políticas.`);
  const problem = compileProblem(logic);
  if (problem) refuse(`${where} não é uma expressão JSON Logic válida: ${problem}.`);
  for (const path of variablesOf(logic)) {
    const root = path.split('.')[0]!;
    if (!readable.has(root)) {
      refuse(`${where} lê "${path}", que não vem de nenhuma seção da política nem de inputs.`);
    }
  }
}

function checkUnique(kind: string, ids: readonly string[]): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) refuse(`O identificador de ${kind} "${id}" aparece mais de uma vez.`);
    seen.add(id);
  }
}

function checkWithin(subjectMust: string, value: number, bounds: { min: number; max: number }, integer: boolean): void {
  const number = integer ? Number.isInteger(value) : Number.isFinite(value);
  if (typeof value !== 'number' || !number || value < bounds.min || value > bounds.max) {
    refuse(`${subjectMust} ser um número${integer ? ' inteiro' : ''} entre ${bounds.min} e ${bounds.max}.`);
  }
}

export function validatePolicyContent(content: PolicyContent): void {
  if (!content.name.trim()) refuse('O nome da política é obrigatório.');
  if (content.sections.length === 0) refuse('A política precisa consultar ao menos uma seção.');
  checkUnique('seção', content.sections);
  for (const section of content.sections) {
    if (!(section in SECTION_TYPES)) refuse(`A seção "${section}" não existe.`);
    if (!sectionAppliesTo(section, content.documentType)) {
      refuse(`A seção ${section} não se aplica a políticas de ${label(content.documentType)}.`);
    }
  }

  const { score } = content;
  // The events of a policy feed the read model: a number it cannot store must not be decided.
  checkWithin('A pontuação base precisa', score.base, SCORE_BOUNDS, true);
  checkWithin('A pontuação mínima precisa', score.min, SCORE_BOUNDS, true);
  checkWithin('A pontuação máxima precisa', score.max, SCORE_BOUNDS, true);
  checkWithin('O corte de aprovação precisa', score.approveFrom, SCORE_BOUNDS, true);
  checkWithin('O corte de negação precisa', score.denyBelow, SCORE_BOUNDS, true);
  if (score.min >= score.max) refuse('A pontuação mínima precisa ser menor que a máxima.');
  if (score.base < score.min || score.base > score.max) refuse('A pontuação base precisa estar entre a mínima e a máxima.');
  if (score.denyBelow > score.approveFrom) refuse('O corte de negação não pode ser maior que o corte de aprovação.');

  const readable = new Set<string>([...content.sections, INPUTS_NAMESPACE, DOCUMENT_NAMESPACE]);
  checkUnique(
    'fator de pontuação',
    score.factors.map((f) => f.id),
  );
  for (const factor of score.factors) {
    if (factor.when !== null) checkExpression(`A condição do fator "${factor.id}"`, factor.when, readable);
    if (typeof factor.points === 'number') checkWithin(`Os pontos do fator "${factor.id}" precisam`, factor.points, POINTS_BOUNDS, false);
    else checkExpression(`Os pontos do fator "${factor.id}"`, factor.points, readable);
  }

  checkUnique(
    'grupo',
    content.groups.map((g) => g.id),
  );
  checkUnique(
    'regra',
    content.groups.flatMap((g) => g.rules.map((r) => r.id)),
  );
  for (const group of content.groups) {
    for (const rule of group.rules) checkExpression(`A regra "${rule.id}"`, rule.condition, readable);
  }
}

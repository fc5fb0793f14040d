import { LogicEngine } from 'json-logic-engine';
import type { JsonLogic } from './policy.ts';

/**
 * The one place JSON Logic is run. A well-kept library does the evaluation; we only find out
 * which variables an expression reads, to explain a decision with the facts behind it.
 */
const engine = new LogicEngine();

// Built expressions by their text: a policy version's rules run for every report under it.
const built = new Map<string, (data: unknown) => unknown>();
const MAX_BUILT = 5_000;

function compile(logic: JsonLogic): (data: unknown) => unknown {
  const key = JSON.stringify(logic);
  let fn = built.get(key);
  if (!fn) {
    fn = engine.build(logic) as (data: unknown) => unknown;
    if (built.size >= MAX_BUILT) built.delete(built.keys().next().value!);
    built.set(key, fn);
  }
  return fn;
}

/** Why an expression cannot be used, or null when it compiles. */
export function compileProblem(logic: JsonLogic): string | null {
  try {
    compile(logic);
    return null;
  } catch (error) {
    const e = error as { type?: string; key?: string; message?: string };
    if (e?.type === 'Unknown Operator') return `operador desconhecido "${e.key}"`;
    return e?.message ?? String(error);
  }
}

export function runLogic(logic: JsonLogic, data: unknown): unknown {
  return compile(logic)(data);
}

/** JSON Logic truthiness (an empty array is false), not JavaScript's. */
export function truthy(value: unknown): boolean {
  return Boolean(engine.truthy(value));
}

// Operators whose later arguments run once per item with the item as their data: variables
// there are relative to the item, so only the first argument reads the report's facts.
const ITERATORS = new Set(['map', 'filter', 'reduce', 'all', 'some', 'none', 'every']);

/** The data paths an expression reads (`PROTESTS.bureau.protestsQuantity`, `inputs.renda`). */
export function variablesOf(logic: JsonLogic): string[] {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [operator, args] of Object.entries(node)) {
      const list = Array.isArray(args) ? args : [args];
      if (operator === 'var') {
        const path = list[0];
        if (typeof path === 'string' && path !== '') found.add(path);
        else visit(path);
        list.slice(1).forEach(visit);
      } else if (operator === 'missing') {
        for (const p of list)
          if (typeof p === 'string') found.add(p);
          else visit(p);
      } else if (operator === 'missing_some') {
        visit(list[0]);
        const paths = list[1];
        if (Array.isArray(paths)) for (const p of paths) if (typeof p === 'string') found.add(p);
      } else if (ITERATORS.has(operator)) {
        visit(list[0]);
      } else {
        list.forEach(visit);
      }
    }
  };
  visit(logic);
  return [...found];
}

/**
 * Bounds on one expression, so that building it (json-logic-engine computes its constant parts
 * then, on the request that saves the policy) and running it for every report take bounded time.
 * Three `some` over a literal list of 400 numbers, each list merged with the item above, once
 * took 2.8 s to build; with 10,000 numbers, hours. A real rule reads a few facts: the demo
 * policies' largest has 5 elements.
 */
export const EXPRESSION_BOUNDS = { elements: 1_000, listItems: 500, iteratorNesting: 2 } as const;

/**
 * Why an expression exceeds EXPRESSION_BOUNDS, in Portuguese after the expression's name, or null.
 * Besides size: at most EXPRESSION_BOUNDS.iteratorNesting iterators inside one another (in any
 * argument), and a `reduce` whose step reads the accumulator once and runs no iterator, since a
 * step that doubles the accumulator doubles it once per item.
 */
export function boundsProblem(logic: JsonLogic): string | null {
  const { elements, listItems, iteratorNesting } = EXPRESSION_BOUNDS;
  let seen = 0;
  // `step`: the accumulator reads so far in the step of the reduce being visited, if any.
  const visit = (node: unknown, depth: number, step: { reads: number } | null): string | null => {
    if (++seen > elements) return `tem mais de ${elements} elementos (operadores, argumentos e valores); divida-a em regras menores`;
    if (Array.isArray(node)) {
      if (node.length > listItems) return `tem uma lista com mais de ${listItems} itens`;
      for (const item of node) {
        const problem = visit(item, depth, step);
        if (problem) return problem;
      }
      return null;
    }
    if (node === null || typeof node !== 'object') return null;
    for (const [operator, args] of Object.entries(node)) {
      const list = Array.isArray(args) ? args : [args];
      if (operator === 'var' && step) {
        // A path built by an expression might be the accumulator: counted as a read of it.
        const path: unknown = list[0];
        if ((typeof path !== 'string' || path === '' || path === 'accumulator' || path.startsWith('accumulator.')) && ++step.reads > 1) {
          return 'lê o acumulador de um reduce mais de uma vez no mesmo passo';
        }
      }
      if (!ITERATORS.has(operator)) {
        const problem = visit(args, depth, step);
        if (problem) return problem;
        continue;
      }
      if (step) return 'usa um operador de iteração dentro do passo de um reduce';
      if (depth + 1 > iteratorNesting) return `aninha mais de ${iteratorNesting} operadores de iteração (${[...ITERATORS].join(', ')})`;
      for (const [index, arg] of list.entries()) {
        const problem = visit(arg, depth + 1, operator === 'reduce' && index === 1 ? { reads: 0 } : null);
        if (problem) return problem;
      }
    }
    return null;
  };
  return visit(logic, 0, null);
}

/** Operators we refuse in policies because they read data in ways we cannot explain. */
export function forbiddenOperatorOf(logic: JsonLogic): string | null {
  // pipe also feeds each step the one before: like a reduce's step, but with no item to bound it.
  const forbidden = new Set(['val', 'get', 'eachKey', 'preserve', 'throw', 'try', 'pipe']);
  let hit: string | null = null;
  const visit = (node: unknown): void => {
    if (hit) return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    for (const [operator, args] of Object.entries(node)) {
      if (forbidden.has(operator)) {
        hit = operator;
        return;
      }
      visit(args);
    }
  };
  visit(logic);
  return hit;
}

/** The value at a dotted path, as `var` would read it (arrays by index). */
export function valueAt(data: unknown, path: string): unknown {
  let node = data;
  for (const part of path.split('.')) {
    if (node === null || typeof node !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(node, part)) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}

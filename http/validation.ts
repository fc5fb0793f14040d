import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { Messages } from '../domain/shared/messages.ts';
import { HttpError } from './errors.ts';

/**
 * How deep a JSON body may nest. A policy's JSON Logic needs a few dozen levels at most; deeper,
 * cloning, schema checks and Postgres's jsonb recurse until they fail, which is no fault of ours
 * to answer with a 500. The text of Messages.jsonTooDeep says this number.
 */
export const MAX_JSON_DEPTH = 64;

/** The largest value of a Postgres integer column: ids of versions, offsets. */
export const MAX_INT32 = 2_147_483_647;

/** Numbers a schema leaves open (JSON Logic) stay where a double is exact. */
const MAX_OPEN_NUMBER = Number.MAX_SAFE_INTEGER;

interface RawError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
}

type Validator = ReturnType<typeof Compile>;
const compiled = new WeakMap<TSchema, Validator>();

function validatorOf(schema: TSchema): Validator {
  let validator = compiled.get(schema);
  if (!validator) {
    validator = Compile(schema);
    compiled.set(schema, validator);
  }
  return validator;
}

function schemaAt(root: TSchema, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const part of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node as Record<string, unknown> | undefined;
}

function dotted(instancePath: string): string {
  return instancePath.split('/').filter(Boolean).join('.');
}

function enumValues(schema: Record<string, unknown> | undefined): unknown[] | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  const options = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  if (options?.every((o) => 'const' in o)) return options.map((o) => o.const);
  return undefined;
}

/** The message class-validator would give, since the contract's texts are in that style. */
function describe(field: string, schema: Record<string, unknown> | undefined, error: RawError): string {
  const p = error.params;
  switch (error.keyword) {
    case 'required':
      return `${field} should not be empty`;
    case 'minLength':
      return Number(p.limit) <= 1 ? `${field} should not be empty` : `${field} must be longer than or equal to ${p.limit} characters`;
    case 'maxLength':
      return `${field} must be shorter than or equal to ${p.limit} characters`;
    case 'minItems':
      return `${field} must contain at least ${p.limit} elements`;
    case 'maxItems':
      return `${field} must contain no more than ${p.limit} elements`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${field} must not be less than ${p.limit}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${field} must not be greater than ${p.limit}`;
    case 'pattern':
      return `${field} must match ${String(p.pattern)} regular expression`;
    case 'format':
      return p.format === 'email' ? `${field} must be an email` : `${field} must be a valid ISO 8601 date string`;
    case 'enum':
    case 'const':
    case 'anyOf': {
      const values = enumValues(schema);
      if (values) return `${field} must be one of the following values: ${values.join(', ')}`;
      return `${field} has an invalid value`;
    }
    case 'type': {
      const type = schema?.type;
      if (type === 'string') return `${field} must be a string`;
      if (type === 'integer') return `${field} must be an integer number`;
      if (type === 'number') return `${field} must be a number conforming to the specified constraints`;
      if (type === 'boolean') return `${field} must be a boolean value`;
      if (type === 'array') return `${field} must be an array`;
      if (type === 'object') return `${field} must be an object`;
      return `${field} has an invalid type`;
    }
    default:
      return `${field} is invalid`;
  }
}

/**
 * One message for all failures, joined by commas, in the contract's style:
 * `document should not be empty,type must be one of the following values: cpf, cnpj`.
 * A schema may carry `errorMessage` (a contract text); it is then prefixed with the path of the
 * object that holds the field, as in `files.0.Apenas arquivos PDF são aceitos.`.
 */
export function validationMessage(schema: TSchema, value: unknown): string | null {
  const validator = validatorOf(schema);
  if (validator.Check(value)) return null;
  const byPath = new Map<string, string>();
  // A bound broken in the one branch of a union the value's type chose (a number too large for
  // `number | expression`, a text too long for `string | null`) says more than the union's
  // "invalid value"; other errors inside a branch are noise.
  const branchDetail = new Map<string, string>();
  // The union each failed branch belongs to, by value path: an optional property's union fails
  // with its branches' errors only, no `anyOf` error of its own, and must still be named.
  const failedUnions = new Map<string, string>();
  const record = (path: string, schemaPath: string, raw: RawError) => {
    const fieldSchema = schemaAt(schema, schemaPath);
    const custom = fieldSchema?.errorMessage;
    if (typeof custom === 'string') {
      const parent = dotted(path.split('/').slice(0, -1).join('/'));
      byPath.set(path, parent ? `${parent}.${custom}` : custom);
    } else {
      byPath.set(path, (raw.keyword === 'anyOf' && branchDetail.get(path)) || describe(dotted(path) || 'body', fieldSchema, raw));
    }
  };
  for (const raw of validator.Errors(value) as unknown as RawError[]) {
    const branch = raw.keyword === 'required' ? null : /\/(anyOf|oneOf)\/\d+$/.exec(raw.schemaPath);
    if (branch) {
      if (!failedUnions.has(raw.instancePath)) failedUnions.set(raw.instancePath, raw.schemaPath.slice(0, branch.index));
      if (raw.keyword !== 'type' && raw.keyword !== 'const' && !branchDetail.has(raw.instancePath)) {
        branchDetail.set(raw.instancePath, describe(dotted(raw.instancePath) || 'body', schemaAt(schema, raw.schemaPath), raw));
      }
      continue;
    }
    const missing = raw.keyword === 'required' ? ((raw.params.requiredProperties as string[]) ?? []) : [undefined];
    for (const property of missing) {
      const path = property === undefined ? raw.instancePath : `${raw.instancePath}/${property}`;
      if (byPath.has(path) && raw.keyword !== 'anyOf') continue;
      record(path, property === undefined ? raw.schemaPath : `${raw.schemaPath}/properties/${property}`, raw);
    }
  }
  for (const [path, unionPath] of failedUnions) {
    if (!byPath.has(path)) record(path, unionPath, { keyword: 'anyOf', schemaPath: unionPath, instancePath: path, params: {} });
  }
  // A fixed contract text shared by several fields is said once.
  return [...new Set(byPath.values())].join(',');
}

/** Validate and return the typed value; 400 with the joined message otherwise. */
export function validate<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const message = validationMessage(schema, value);
  if (message !== null) throw new HttpError(400, message);
  return value as Static<S>;
}

// Iterative, since the point is to refuse what recursion cannot take.
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

// With the u flag a surrogate pair is one code point: only a lone half matches.
const LONE_SURROGATE = /\p{Surrogate}/u;

function textProblem(text: string): string | null {
  // Postgres refuses both in text and jsonb (22021, 22P05): the write would fail after the checks.
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must be well-formed Unicode text';
  return null;
}

/**
 * What the schema let through but no column could keep: NUL characters and lone surrogates in
 * any text or key, numbers beyond a double's exact integers where the schema names no range.
 * The first such value is named, in the style of the schema messages.
 */
function unstorable(value: unknown): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    const field = path || 'body';
    if (typeof node === 'string') {
      const problem = textProblem(node);
      if (problem) return `${field} ${problem}`;
    } else if (typeof node === 'number') {
      if (!(node <= MAX_OPEN_NUMBER)) return `${field} must not be greater than ${MAX_OPEN_NUMBER}`;
      if (!(node >= -MAX_OPEN_NUMBER)) return `${field} must not be less than ${-MAX_OPEN_NUMBER}`;
    } else if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node);
      for (const [key] of entries) {
        const problem = textProblem(key);
        if (problem) return `${field} ${problem}`;
      }
      // Reversed onto the stack, so the first problem named is the first in the document.
      for (const [key, child] of entries.reverse()) stack.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return null;
}

function storable<T>(value: T): T {
  const problem = unstorable(value);
  if (problem !== null) throw new HttpError(400, problem);
  return value;
}

/** Query strings and path params are text: convert to the schema's types, fill defaults, then validate. */
export function validateText<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const converted = Value.Default(schema, Value.Convert(schema, structuredClone(value ?? {})));
  return storable(validate(schema, converted));
}

/** JSON bodies: unknown fields are discarded (the contract says so), nothing is coerced. */
export function validateBody<S extends TSchema>(schema: S, value: unknown): Static<S> {
  const body = value === undefined || value === null ? {} : value;
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) throw new HttpError(400, Messages.jsonTooDeep);
  const cleaned = typeof body === 'object' ? Value.Clean(schema, structuredClone(body)) : body;
  return storable(validate(schema, Value.Default(schema, cleaned)));
}

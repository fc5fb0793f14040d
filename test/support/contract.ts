import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { routeTables } from '../../http/modules.ts';
import { answersOf, operationsOf, type Operation } from '../../http/openapi.ts';

/**
 * Every reply a test receives is checked against the operation it came from in /openapi.json
 * (the same route tables build both): its status must be listed and its body must match the
 * schema of that status, with no field the schema leaves out.
 */

interface Matcher {
  method: string;
  pattern: RegExp;
  /** Static routes first: /webhook/findBy before /webhook/:id. */
  params: number;
  operation: Operation;
}

const matchers: Matcher[] = operationsOf(routeTables)
  .map((operation) => ({
    method: operation.spec.method.toUpperCase(),
    pattern: new RegExp(`^${operation.spec.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+')}$`),
    params: (operation.spec.path.match(/:/g) ?? []).length,
    operation,
  }))
  .sort((a, b) => a.params - b.params);

export function operationFor(method: string, path: string): Operation | undefined {
  const pathname = path.split('?')[0]!;
  return matchers.find((m) => m.method === method.toUpperCase() && m.pattern.test(pathname))?.operation;
}

/**
 * The schema as a closed shape: an object that does not say otherwise admits no other field, so
 * a reply field missing from the document fails. allOf members are closed together, at the allOf.
 */
function closed(schema: unknown, insideAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closed(s, insideAllOf));
  if (schema === null || typeof schema !== 'object') return schema;
  const node = schema as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = closed(value, key === 'allOf');
  if (node.type === 'object' && node.properties && !('additionalProperties' in node) && !insideAllOf) copy.additionalProperties = false;
  if (Array.isArray(node.allOf) && !('unevaluatedProperties' in node)) copy.unevaluatedProperties = false;
  return copy;
}

const validators = new WeakMap<TSchema, ReturnType<typeof Compile>>();
function validatorOf(schema: TSchema) {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(closed(JSON.parse(JSON.stringify(schema))) as TSchema);
    validators.set(schema, validator);
  }
  return validator;
}

/** Throws a message naming the operation, status and first mismatches when the reply breaks the document. */
export function checkReply(method: string, path: string, reply: { status: number; body: unknown; contentType: string | null }): void {
  const operation = operationFor(method, path);
  if (!operation) return;
  const where = `${method.toUpperCase()} ${path.split('?')[0]} (${operation.operationId})`;
  const answer = answersOf(operation.spec).get(reply.status);
  if (!answer) throw new Error(`${where} answered ${reply.status}, a status /openapi.json does not list for it`);
  if ('files' in answer) {
    const type = (reply.contentType ?? '').split(';')[0]!.trim();
    if (answer.files.includes(type)) return;
    if (!answer.schema || type !== 'application/json') throw new Error(`${where} answered ${reply.status} as ${type}, not one of ${answer.files.join(', ')}`);
  }
  const validator = validatorOf(answer.schema!);
  if (validator.Check(reply.body)) return;
  const errors = [...validator.Errors(reply.body)].slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
  throw new Error(`${where} answered ${reply.status} with a body /openapi.json does not describe: ${errors.join('; ')}\n${JSON.stringify(reply.body).slice(0, 500)}`);
}

import type { Context } from 'koa';
import { readOwnWrites } from '../../application/read-your-writes.ts';
import Type, { type TSchema } from 'typebox';
import type { AppContext } from '../../application/context.ts';
import type { Principal } from '../../domain/identity/access.ts';
import { checkGate } from '../gates.ts';
import { plain } from '../openapi.ts';
import { asReply, withoutCallerFields, type Method, type Reply, type RouteSpec, type RouteTable } from '../route.ts';
import { validateBody, validateText } from '../validation.ts';

/**
 * One tool of the MCP connector: an API route, run as the route runs (its gate, its schemas, its
 * handler), so an agent can do exactly what its user could do with the API and nothing else.
 */
export interface ToolDeclaration {
  name: string;
  title: string;
  /** What the tool is for, in Portuguese: the agent reads it to choose. */
  description: string;
  route: { method: Method; path: string };
  /** Path or query values the tool always sends (the section it reads): not asked of the agent. */
  fixed?: Record<string, string>;
  /** Extra arguments the tool handles itself (waiting for a report). */
  extra?: Record<string, TSchema>;
  /** What the tool does after its route answered (wait for the report it created). */
  settle?(reply: Reply, input: ToolInput): Promise<Reply>;
}

export interface Tool extends ToolDeclaration {
  spec: RouteSpec;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[] };
  readOnly: boolean;
  run(input: ToolInput): Promise<Reply>;
}

export interface ToolInput {
  args: Record<string, unknown>;
  principal: Principal;
  app: AppContext;
  ctx: Context;
}

/** A route's body that is not a plain object (a union) is asked whole, under this name. */
const WHOLE_BODY = 'corpo';

interface ObjectSchema {
  properties?: Record<string, TSchema>;
  required?: string[];
}

const propertiesOf = (schema: TSchema | undefined): ObjectSchema => (schema ?? {}) as ObjectSchema;

function findRoute(tables: readonly RouteTable[], { method, path }: ToolDeclaration['route']): RouteSpec {
  const spec = tables.flatMap((t) => t.routes).find((r) => r.method === method && r.path === path);
  if (!spec) throw new Error(`MCP tool names a route that does not exist: ${method.toUpperCase()} ${path}`);
  return spec;
}

/**
 * The tool's arguments: the route's path parameters, query and body fields side by side (a name
 * used twice is a mistake caught at start), less what the tool fixes, plus its own extras.
 */
function argumentsOf(declaration: ToolDeclaration, spec: RouteSpec) {
  const fixed = new Set(Object.keys(declaration.fixed ?? {}));
  const parts = { params: propertiesOf(spec.params), query: propertiesOf(spec.query), body: propertiesOf(spec.body) };
  const bodyIsObject = !spec.body || parts.body.properties !== undefined;
  const owner = new Map<string, 'params' | 'query' | 'body' | 'extra'>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const add = (name: string, schema: TSchema, where: 'params' | 'query' | 'body' | 'extra', isRequired: boolean) => {
    if (fixed.has(name)) return;
    if (owner.has(name)) throw new Error(`MCP tool ${declaration.name}: argument ${name} comes from both ${owner.get(name)} and ${where}`);
    owner.set(name, where);
    properties[name] = plain(schema);
    if (isRequired) required.push(name);
  };
  for (const where of ['params', 'query', 'body'] as const) {
    if (where === 'body' && !bodyIsObject) continue;
    const { properties: own = {}, required: needed = [] } = parts[where];
    for (const [name, schema] of Object.entries(own)) add(name, schema, where, needed.includes(name));
  }
  if (!bodyIsObject) add(WHOLE_BODY, spec.body!, 'body', true);
  for (const [name, schema] of Object.entries(declaration.extra ?? {})) add(name, schema, 'extra', false);
  const split = (args: Record<string, unknown>) => {
    const out = { params: { ...declaration.fixed } as Record<string, unknown>, query: {} as Record<string, unknown>, body: {} as Record<string, unknown> };
    for (const [name, value] of Object.entries(args)) {
      const where = owner.get(name);
      if (where === 'params' || where === 'query') out[where][name] = value;
      else if (where === 'body') out.body[name] = value;
    }
    // Fixed values are path parameters or query fields, whichever the route has.
    for (const name of Object.keys(declaration.fixed ?? {})) {
      if (!parts.params.properties?.[name]) {
        out.query[name] = out.params[name];
        delete out.params[name];
      }
    }
    return { ...out, body: bodyIsObject ? out.body : out.body[WHOLE_BODY] };
  };
  // The tool's own arguments are checked against the schema it declares, like the route's: an
  // unchecked wait of 3,000,000 s overflowed the timer into a 1 ms loop reading the database.
  const extraSchema = Type.Object(declaration.extra ?? {});
  const extras = (args: Record<string, unknown>) => validateBody(extraSchema, Object.fromEntries(Object.entries(args).filter(([name]) => owner.get(name) === 'extra')));
  return { inputSchema: { type: 'object' as const, properties, required }, split, extras };
}

/** Bind each declaration to its route: a tool whose route is gone fails the start, not a call. */
export function buildTools(declarations: readonly ToolDeclaration[], tables: readonly RouteTable[]): Tool[] {
  return declarations.map((declaration) => {
    const spec = findRoute(tables, declaration.route);
    const { inputSchema, split, extras } = argumentsOf(declaration, spec);
    return {
      ...declaration,
      spec,
      inputSchema,
      readOnly: spec.method === 'get',
      async run({ args, principal, app, ctx }) {
        // The same order as an HTTP request: gate, the caller's own writes, then path and query, then the body.
        checkGate(spec.gate, principal);
        await readOwnWrites(app, principal, spec.reads);
        const parts = split(args);
        const params = spec.params ? validateText(spec.params, parts.params) : parts.params;
        const query = spec.query ? validateText(spec.query, parts.query) : parts.query;
        const early = spec.before && (await spec.before({ params, principal, app, ctx }));
        const received = withoutCallerFields(parts.body);
        const body = spec.body ? validateBody(spec.body, received) : received;
        // Before the route acts: a refused wait must not leave a report created behind it.
        const own = extras(args);
        const reply = early || asReply(await spec.handle({ params, query, body, principal, app, ctx }));
        return declaration.settle ? declaration.settle(reply, { args: { ...args, ...own }, principal, app, ctx }) : reply;
      },
    };
  });
}

import type { TSchema } from 'typebox';
import { ErrorBody, type RouteTable } from './route.ts';

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Strip typebox's private keys and our `errorMessage` hint so the document is plain JSON Schema. */
function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === 'errorMessage' || key === '~kind' ? undefined : value)));
}

function parametersOf(schema: TSchema | undefined, where: 'path' | 'query'): unknown[] {
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: plain(s),
  }));
}

/** OpenAPI 3.1 from the same route tables (and typebox schemas) that validate requests. */
export function buildOpenApi(tables: readonly RouteTable[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const table of tables) {
    for (const spec of table.routes) {
      const path = toOpenApiPath(spec.path);
      const responses: Record<string, unknown> = {};
      for (const [status, schema] of Object.entries(spec.responses ?? {})) {
        responses[status] = { description: status, content: { 'application/json': { schema: plain(schema) } } };
      }
      if (!responses['200']) responses['200'] = { description: 'OK' };
      responses.default = { description: 'Error', content: { 'application/json': { schema: plain(ErrorBody) } } };
      paths[path] ??= {};
      paths[path][spec.method] = {
        tags: [table.module],
        summary: spec.summary,
        ...(spec.description ? { description: spec.description } : {}),
        ...(spec.auth === false ? { security: [] } : {}),
        parameters: [...parametersOf(spec.params, 'path'), ...parametersOf(spec.query, 'query')],
        ...(spec.body && !spec.rawBody
          ? { requestBody: { required: true, content: { 'application/json': { schema: plain(spec.body) } } } }
          : {}),
        responses,
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Credit Analysis, Proposals and Document Collection API', version: '1.0' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths,
  };
}

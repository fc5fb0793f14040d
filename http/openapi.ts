import type { TSchema } from 'typebox';
import { Messages } from '../domain/shared/messages.ts';
import { OperationMessages } from '../domain/operation/messages.ts';
import { IDEMPOTENCY_HEADER, IdempotencyMessages, REPLAYED_HEADER } from './idempotency.ts';
import { ErrorBody, needsBearer, takesIdempotencyKey, type RouteSpec, type RouteTable } from './route.ts';
import { webhookPayloads } from './webhook/payloads.ts';

function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Strip typebox's private keys and our `errorMessage` hint so the document is plain JSON Schema. */
export function plain(schema: TSchema): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value) => (key === 'errorMessage' || key === '~kind' ? undefined : value)));
}

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');

/**
 * `report_getV2ReportById`: module, method, then the path with `By<Param>` for each parameter.
 * Derived from what already identifies the route, so it only changes when the route does.
 */
export function operationIdOf(module: string, spec: RouteSpec): string {
  if (spec.operationId) return spec.operationId;
  const words = spec.path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment)))
    .join('');
  const camelModule = pascal(module).replace(/^./, (c) => c.toLowerCase());
  return `${camelModule}_${spec.method}${words}`;
}

const sendsBody = (spec: RouteSpec) => spec.method === 'post' || spec.method === 'put' || spec.method === 'patch';

/**
 * Every error status a route can answer: those its declaration implies (validation, bearer,
 * rate limit, gate, body parsing, idempotency) and those it names in `errors`.
 */
export function errorStatusesOf(spec: RouteSpec): number[] {
  const statuses = new Set<number>([431, 500, ...(spec.errors ?? [])]);
  if (spec.params || spec.query || spec.body || spec.rawBody || spec.upload) statuses.add(400);
  if (spec.upload) statuses.add(413);
  if (spec.params) statuses.add(404);
  if (sendsBody(spec)) [400, 413, 415].forEach((s) => statuses.add(s));
  if (needsBearer(spec)) [401, 429].forEach((s) => statuses.add(s));
  if (spec.gate?.modules || spec.gate?.permissions) {
    statuses.add(spec.gate.moduleDenied?.status ?? 403);
    if (spec.gate.permissions) statuses.add(spec.gate.permissionDenied?.status ?? 403);
  }
  if (takesIdempotencyKey(spec)) [400, 422].forEach((s) => statuses.add(s));
  // A command that keeps losing the race for its stream ends in 409, as does a POST repeated with
  // its Idempotency-Key while the first is in flight.
  if (spec.method !== 'get' && needsBearer(spec)) statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * What a route answers, status by status: a JSON schema, or raw bytes of the given media types,
 * or both for a 200 that negotiates (JSON by default, a file when the caller asks for one).
 */
export type Answer = { schema: TSchema } | { files: readonly string[]; schema?: TSchema };

export function answersOf(spec: RouteSpec): Map<number, Answer> {
  const answers = new Map<number, Answer>();
  for (const [status, schema] of Object.entries(spec.responses ?? {})) answers.set(Number(status), { schema });
  if (spec.files) answers.set(200, { files: spec.files, ...(spec.responses?.[200] && { schema: spec.responses[200] }) });
  for (const status of errorStatusesOf(spec)) if (!answers.has(status)) answers.set(status, { schema: ErrorBody });
  return answers;
}

export interface Operation {
  module: string;
  spec: RouteSpec;
  operationId: string;
}

export function operationsOf(tables: readonly RouteTable[]): Operation[] {
  const operations = tables.flatMap((table) => table.routes.map((spec) => ({ module: table.module, spec, operationId: operationIdOf(table.module, spec) })));
  const seen = new Set<string>();
  for (const { operationId } of operations) {
    if (seen.has(operationId)) throw new Error(`Two routes share the operationId ${operationId}: give one an explicit operationId`);
    seen.add(operationId);
  }
  return operations;
}

const ERRORS: Record<number, { name: string; description: string; example: string }> = {
  400: {
    name: 'BadRequest',
    description: 'Invalid body, parameter, id or Idempotency-Key; validation failures joined by commas',
    example: 'document should not be empty,type must be one of the following values: cpf, cnpj',
  },
  401: { name: 'Unauthorized', description: 'Token missing, expired or invalid (or, on authentication, a wrong secret)', example: Messages.invalidToken },
  403: { name: 'Forbidden', description: 'Module not contracted or no permission of the route', example: Messages.forbidden },
  404: { name: 'NotFound', description: 'Absent in the caller organization (or hidden from a caller without the capability)', example: Messages.recordNotFound },
  409: { name: 'Conflict', description: 'Does not fit the current state, or a request with the same Idempotency-Key is still in flight', example: IdempotencyMessages.inFlight },
  413: { name: 'PayloadTooLarge', description: 'Body above BODY_LIMIT', example: Messages.bodyTooLarge },
  415: { name: 'UnsupportedMediaType', description: 'Body not sent as application/json', example: 'O corpo da requisição deve ser application/json.' },
  422: { name: 'UnprocessableEntity', description: 'Cannot be processed as asked, or the Idempotency-Key was used with another request', example: IdempotencyMessages.otherRequest },
  429: { name: 'TooManyRequests', description: 'Rate limit reached; wait Retry-After seconds (backoff 1 s, 2 s, 4 s up to 60 s)', example: Messages.rateLimited },
  431: { name: 'HeadersTooLarge', description: 'Request line or headers too large', example: 'Cabeçalhos ou endereço da requisição grandes demais.' },
  500: { name: 'InternalError', description: 'Unexpected failure; retry, then contact support with the time of the call and X-Request-Id', example: Messages.internalError },
  502: { name: 'BadGateway', description: 'An internal service did not answer', example: Messages.reportExportFailed },
  503: {
    name: 'PartiallyDone',
    description: 'Part of the operation was done and part not: read the message and the extra fields (reportId, proposalRunId) before repeating',
    example: OperationMessages.reportLinkFailed,
  },
};

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content' };

export interface OpenApiOptions {
  /** PUBLIC_BASE_URL: where integrators reach the service. */
  serverUrl: string;
}

/** OpenAPI 3.1 from the same route tables (and typebox schemas) that validate requests. */
/** A module may mount several route tables; it is still one tag, described by its first table. */
function moduleTags(tables: readonly RouteTable[]): Array<{ name: string; description: string }> {
  const tags = new Map<string, { name: string; description: string }>();
  for (const table of tables) if (!tags.has(table.module)) tags.set(table.module, { name: table.module, description: table.description ?? table.module });
  return [...tags.values()];
}

export function buildOpenApi(tables: readonly RouteTable[], options: OpenApiOptions): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const usedErrors = new Set<number>();
  for (const { module, spec, operationId } of operationsOf(tables)) {
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of answersOf(spec)) {
      if ('files' in answer) {
        responses[status] = {
          description: SUCCESS[status] ?? String(status),
          headers: { 'Cache-Control': { $ref: '#/components/headers/CacheControl' } },
          content: {
            ...(answer.schema && { 'application/json': { schema: plain(answer.schema) } }),
            ...Object.fromEntries(answer.files.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
          },
        };
      } else if (answer.schema === ErrorBody && ERRORS[status]) {
        usedErrors.add(status);
        responses[status] = { $ref: `#/components/responses/${ERRORS[status].name}` };
      } else {
        responses[status] = {
          description: SUCCESS[status] ?? ERRORS[status]?.description ?? String(status),
          headers: {
            'Cache-Control': { $ref: '#/components/headers/CacheControl' },
            ...(takesIdempotencyKey(spec) ? { [REPLAYED_HEADER]: { $ref: '#/components/headers/IdempotentReplayed' } } : {}),
          },
          content: { 'application/json': { schema: plain(answer.schema) } },
        };
      }
    }
    const parameters = [...parametersOf(spec.params, 'path'), ...parametersOf(spec.query, 'query')];
    if (takesIdempotencyKey(spec)) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    paths[toOpenApiPath(spec.path)] ??= {};
    paths[toOpenApiPath(spec.path)]![spec.method] = {
      operationId,
      tags: [module],
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      security: securityOf(spec),
      ...(parameters.length ? { parameters } : {}),
      ...requestBodyOf(spec),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Credit Analysis, Proposals and Document Collection API',
      version: '1.0',
      description:
        'Errors are `{code, message}` with code equal to the status and a Portuguese message. Authenticated POSTs accept an ' +
        '`Idempotency-Key`: the same key and body within 24 hours give the first reply again without a second effect.',
      license: { name: 'Proprietary', url: `${options.serverUrl}/openapi.json` },
    },
    servers: [{ url: options.serverUrl }],
    tags: moduleTags(tables),
    paths,
    webhooks: webhookPayloads(),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'accessToken from POST /auth/authenticate, valid 24 hours' },
        clientId: { type: 'apiKey', in: 'header', name: 'service-client-id', description: 'client id of an API credential' },
        clientSecret: { type: 'apiKey', in: 'header', name: 'service-client-secret', description: 'client secret, shown once when the credential is made' },
      },
      schemas: { Error: plain(ErrorBody) },
      parameters: {
        IdempotencyKey: {
          name: IDEMPOTENCY_HEADER,
          in: 'header',
          required: false,
          description:
            'Any 1 to 255 visible ASCII characters, unique per request you mean (a UUID). Within 24 hours, per client credential: the same key ' +
            'and body give the first successful reply again (with Idempotent-Replayed: true) and no second effect; the same key with another ' +
            'body or route answers 422; while the first is in flight, 409. Failed replies are not kept: retrying after one runs again.',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
          example: '5f0c6a34-2d0b-4c61-9d53-8f0e8b4a1c27',
        },
      },
      headers: {
        CacheControl: { description: "no-store: every reply is one caller's data (tokens, reports, files)", schema: { type: 'string', pattern: 'no-store' } },
        IdempotentReplayed: { description: 'true when this reply is the stored reply of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } },
      },
      responses: Object.fromEntries(
        [...usedErrors]
          .sort((a, b) => a - b)
          .map((status) => {
            const { name, description, example } = ERRORS[status]!;
            return [name, { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example: { code: status, message: example } } } }];
          }),
      ),
    },
  };
}

/** Public routes (signed downloads) carry their authorization in the query: no scheme. */
/** JSON bodies as their schema; uploads as multipart/form-data with the file beside the text fields. */
function requestBodyOf(spec: RouteSpec): Record<string, unknown> {
  if (spec.upload) {
    const fields = (spec.body ? plain(spec.body) : { type: 'object', properties: {} }) as { properties?: Record<string, unknown>; required?: string[] };
    const fileFields = [spec.upload.field, ...(spec.upload.alsoFields ?? [])];
    const schema = {
      ...fields,
      type: 'object',
      properties: { ...fields.properties, ...Object.fromEntries(fileFields.map((name) => [name, { type: 'string', format: 'binary', description: `at most ${spec.upload!.maxBytes} bytes` }])) },
      required: [...(fields.required ?? []), ...fileFields],
    };
    return { requestBody: { required: true, content: { 'multipart/form-data': { schema } } } };
  }
  if (!spec.body || spec.rawBody) return {};
  return { requestBody: { required: true, content: { 'application/json': { schema: plain(spec.body) } } } };
}

function securityOf(spec: RouteSpec): unknown[] {
  if (needsBearer(spec)) return [{ bearer: [] }];
  return spec.auth === 'client-credentials' ? [{ clientId: [], clientSecret: [] }] : [];
}

function parametersOf(schema: TSchema | undefined, where: 'path' | 'query'): Array<Record<string, unknown>> {
  const properties = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties ?? {};
  const required = new Set((schema as { required?: string[] } | undefined)?.required ?? []);
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: plain(s),
  }));
}

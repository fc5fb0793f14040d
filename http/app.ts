import Router from '@koa/router';
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { AppContext } from '../application/context.ts';
import { errorMiddleware } from './errors.ts';
import { buildOpenApi } from './openapi.ts';
import { mountRoutes, type RouteTable } from './route.ts';
import { readiness } from './readiness.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,100}$/;

export function createHttpApp(app: AppContext, tables: readonly RouteTable[], projectionNames: readonly string[]): Koa {
  const koa = new Koa({ proxy: true });
  const router = new Router();
  const openapi = buildOpenApi(tables, { serverUrl: app.config.PUBLIC_BASE_URL });

  koa.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', requestId);
    ctx.state.log = app.log.child({ requestId }, true);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      ctx.state.log.info({ method: ctx.method, url: ctx.originalUrl, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    }
  });
  koa.use(errorMiddleware);
  koa.use(
    koaBody({
      jsonLimit: app.config.BODY_LIMIT,
      formLimit: app.config.BODY_LIMIT,
      textLimit: app.config.BODY_LIMIT,
      jsonStrict: true,
      // Uploads read their own raw stream (PUT of presigned files, multipart financial tab).
      multipart: false,
      text: false,
      urlencoded: false,
    }),
  );

  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async (ctx) => {
    const report = await readiness(app, projectionNames);
    ctx.status = report.ready ? 200 : 503;
    ctx.body = report;
  });
  router.get('/openapi.json', (ctx) => {
    ctx.body = openapi;
  });
  mountRoutes(router, app, tables);
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return koa;
}

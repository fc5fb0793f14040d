import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import aws4 from 'aws4';
import { ConfigurationError, type Config } from '../../config/index.ts';
import { assertObjectKey, ObjectSizeMismatchError, ObjectStoreError, type ObjectHead, type ObjectStore, type PresignRequest } from './port.ts';
import { sizedBody } from './sized.ts';

interface S3Settings {
  endpoint: URL;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  timeoutMs: number;
}

function settingsOf(config: Config): S3Settings {
  const missing = (['S3_ENDPOINT', 'S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => !config[name]);
  if (missing.length) throw new ConfigurationError(`OBJECT_STORE=s3 needs ${missing.join(', ')}`);
  return {
    endpoint: new URL(config.S3_ENDPOINT!),
    bucket: config.S3_BUCKET!,
    region: config.S3_REGION,
    credentials: { accessKeyId: config.S3_ACCESS_KEY_ID!, secretAccessKey: config.S3_SECRET_ACCESS_KEY! },
    timeoutMs: config.S3_TIMEOUT_MS,
  };
}

/** `20261123T201500Z`, the form SigV4 dates take. */
const amzDate = (at: Date) => at.toISOString().replace(/[:-]|\.\d{3}/g, '');

interface Call {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  key: string;
  headers?: Record<string, string>;
  /** A buffer is signed with its hash; a stream goes as UNSIGNED-PAYLOAD with its Content-Length. */
  body?: Buffer | Readable;
}

/**
 * Any S3-compatible service (AWS S3, MinIO, Ceph, R2...) addressed path-style
 * (`<endpoint>/<bucket>/<key>`), so one endpoint setting works for all of them. Requests are
 * signed with SigV4 by aws4; uploads go straight from the client to the bucket through presigned
 * PUT URLs whose signature binds Content-Type and Content-Length.
 */
export class S3ObjectStore implements ObjectStore {
  private readonly settings: S3Settings;

  constructor(config: Config) {
    this.settings = settingsOf(config);
  }

  private pathOf(key: string): string {
    assertObjectKey(key);
    const base = this.settings.endpoint.pathname.replace(/(?<!\/)\/+$/, '');
    return `${base}/${encodeURIComponent(this.settings.bucket)}/${key}`;
  }

  private send(call: Call): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
    const { endpoint, region, credentials, timeoutMs } = this.settings;
    const headers: Record<string, string> = { ...call.headers };
    if (call.body && !Buffer.isBuffer(call.body)) headers['X-Amz-Content-Sha256'] = 'UNSIGNED-PAYLOAD';
    const signed = aws4.sign(
      { host: endpoint.host, path: this.pathOf(call.key), method: call.method, service: 's3', region, headers, body: Buffer.isBuffer(call.body) ? call.body : undefined },
      credentials,
    );
    // Looked up per call, not bound at import: interceptors (nock in tests, APM agents) patch the module's function.
    const send = endpoint.protocol === 'https:' ? https.request : http.request;
    return new Promise((resolve, reject) => {
      const req = send(
        {
          protocol: endpoint.protocol,
          hostname: endpoint.hostname,
          port: endpoint.port || undefined,
          path: signed.path,
          method: call.method,
          headers: signed.headers as OutgoingHttpHeaders,
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new ObjectStoreError(`S3 ${call.method} ${call.key}: no answer in ${timeoutMs} ms`)));
      req.on('error', reject);
      if (!call.body) req.end();
      else if (Buffer.isBuffer(call.body)) req.end(call.body);
      else pipeline(call.body, req).catch((error: unknown) => req.destroy(error as Error));
    });
  }

  private async expect(call: Call, ok: readonly number[]) {
    let reply: Awaited<ReturnType<S3ObjectStore['send']>>;
    try {
      reply = await this.send(call);
    } catch (error) {
      if (error instanceof ObjectStoreError || error instanceof ObjectSizeMismatchError) throw error;
      throw new ObjectStoreError(`S3 ${call.method} ${call.key}: ${(error as Error).message}`, { cause: error });
    }
    if (!ok.includes(reply.status)) {
      const code = /<Code>([^<]+)<\/Code>/.exec(reply.body.toString('utf8'))?.[1];
      throw new ObjectStoreError(`S3 ${call.method} ${call.key}: HTTP ${reply.status}${code ? ` ${code}` : ''}`);
    }
    return reply;
  }

  async put(key: string, body: Buffer | Readable, contentType: string, options: { expectedBytes?: number; maxBytes?: number } = {}): Promise<void> {
    if (Buffer.isBuffer(body)) {
      // A buffer's length is known: checked before sending anything.
      if ((options.expectedBytes !== undefined && body.length !== options.expectedBytes) || body.length > (options.maxBytes ?? Infinity)) {
        throw new ObjectSizeMismatchError(key, body.length);
      }
      await this.expect({ method: 'PUT', key, headers: { 'Content-Type': contentType, 'Content-Length': String(body.length) }, body }, [200]);
      return;
    }
    if (options.expectedBytes === undefined) throw new ObjectStoreError(`S3 PUT ${key}: a streamed body needs expectedBytes (S3 needs Content-Length)`);
    const headers = { 'Content-Type': contentType, 'Content-Length': String(options.expectedBytes) };
    await this.expect({ method: 'PUT', key, headers, body: sizedBody(key, body, options) }, [200]);
  }

  async get(key: string): Promise<Buffer | null> {
    const reply = await this.expect({ method: 'GET', key }, [200, 404]);
    return reply.status === 404 ? null : reply.body;
  }

  async head(key: string): Promise<ObjectHead | null> {
    const reply = await this.expect({ method: 'HEAD', key }, [200, 404]);
    return reply.status === 404 ? null : { sizeBytes: Number(reply.headers['content-length'] ?? 0) };
  }

  async delete(keys: readonly string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.expect({ method: 'DELETE', key }, [200, 204, 404])));
  }

  presignPut(key: string, request: PresignRequest): string {
    const { endpoint, region, credentials } = this.settings;
    const query = `X-Amz-Expires=${request.expiresInSeconds}&X-Amz-Date=${amzDate(request.now)}`;
    const signed = aws4.sign(
      {
        host: endpoint.host,
        path: `${this.pathOf(key)}?${query}`,
        method: 'PUT',
        service: 's3',
        region,
        signQuery: true,
        headers: { 'Content-Type': request.contentType, 'Content-Length': String(request.sizeBytes) },
      },
      credentials,
    );
    return `${endpoint.protocol}//${endpoint.host}${signed.path}`;
  }
}

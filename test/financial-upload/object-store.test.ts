import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import nock from 'nock';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../config/index.ts';
import { objectStoreFor, ObjectSizeMismatchError, ObjectStoreError } from '../../application/object-store.ts';
import { LocalObjectStore } from '../../application/object-store/local.ts';

const local = suite('object store: local files');
const KEY = 'financial/org000000000000000000001/rep000000000000000000001/blob00000000000000000001.pdf';
let dir = '';

local.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'object-store-'));
});
local.after.each(() => rmSync(dir, { recursive: true, force: true }));

/** A stream of `count` chunks of `size` bytes, without holding them all. */
const chunks = (count: number, size: number) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < count; i++) yield Buffer.alloc(size, i);
    })(),
  );

local('the default store: put, head, get, delete under DATA_DIR/objects', async () => {
  const store = objectStoreFor(loadConfig({ DATA_DIR: dir }));
  assert.instance(store, LocalObjectStore);
  assert.is((store as LocalObjectStore).root, join(dir, 'objects'));
  assert.is(await store.head(KEY), null);
  assert.is(await store.get(KEY), null);
  await store.put(KEY, Buffer.from('%PDF-1.7 body'), 'application/pdf');
  assert.equal(await store.head(KEY), { sizeBytes: 13 });
  assert.is((await store.get(KEY))!.toString(), '%PDF-1.7 body');
  assert.is(store.presignPut(KEY, { contentType: 'application/pdf', sizeBytes: 13, expiresInSeconds: 900, now: new Date() }), null);
  await store.delete([KEY, `${KEY}.absent`]);
  assert.is(await store.head(KEY), null);
});

local('a stream is stored whole, checked against its expected length', async () => {
  const store = new LocalObjectStore(dir);
  await store.put(KEY, chunks(64, 16 * 1024), 'application/pdf', { expectedBytes: 64 * 16 * 1024 });
  assert.equal(await store.head(KEY), { sizeBytes: 64 * 16 * 1024 });
});

local('a body longer or shorter than expected, or over the limit, stores nothing and leaves no temporary file', async () => {
  const store = new LocalObjectStore(dir);
  for (const [body, options] of [
    [chunks(4, 1000), { expectedBytes: 3999 }],
    [chunks(4, 1000), { expectedBytes: 4001 }],
    [chunks(4, 1000), { maxBytes: 3000 }],
  ] as const) {
    await store.put(KEY, body, 'application/pdf', options).then(
      () => assert.unreachable('accepted'),
      (error: unknown) => assert.instance(error, ObjectSizeMismatchError),
    );
    assert.is(await store.head(KEY), null);
  }
  assert.equal(readdirSync(join(dir, 'financial/org000000000000000000001/rep000000000000000000001')), []);
});

local('a failed replacement keeps the old object; readers never see a partial file', async () => {
  const store = new LocalObjectStore(dir);
  await store.put(KEY, Buffer.from('old'), 'application/pdf');
  await store.put(KEY, chunks(3, 10), 'application/pdf', { expectedBytes: 31 }).catch(() => undefined);
  assert.is((await store.get(KEY))!.toString(), 'old');
  // Concurrent writers (other processes do the same through rename): the object is one of them, whole.
  await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(KEY, Buffer.alloc(100_000, i), 'application/pdf')));
  const bytes = (await store.get(KEY))!;
  assert.is(bytes.length, 100_000);
  assert.ok(bytes.every((b) => b === bytes[0]));
});

local('keys that could leave the folder are refused', async () => {
  const store = new LocalObjectStore(dir);
  for (const key of ['../x.pdf', 'a/../../x', '/etc/passwd', 'a//b', '.hidden', 'a b', '']) {
    await store.get(key).then(
      () => assert.unreachable(key),
      (error: unknown) => assert.instance(error, ObjectStoreError),
    );
  }
});

local.run();

const s3 = suite('object store: S3-compatible (nock)');
const ENDPOINT = 'http://s3.test:9000';
const config = () => loadConfig({ OBJECT_STORE: 's3', S3_ENDPOINT: ENDPOINT, S3_BUCKET: 'statements', S3_REGION: 'sa-east-1', S3_ACCESS_KEY_ID: 'AKIDTEST', S3_SECRET_ACCESS_KEY: 'secret-test-key' });
const SIGNED = /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/sa-east-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/;

s3.before(() => nock.disableNetConnect());
s3.after.each(() => nock.cleanAll());
s3.after(() => nock.enableNetConnect());

s3('put, head, get and delete go path-style to the bucket, signed with SigV4', async () => {
  const store = objectStoreFor(config());
  const api = nock(ENDPOINT)
    .put(`/statements/${KEY}`, '%PDF-1.7 x')
    .matchHeader('authorization', SIGNED)
    .matchHeader('content-type', 'application/pdf')
    .matchHeader('x-amz-content-sha256', /^[0-9a-f]{64}$/)
    .reply(200)
    .head(`/statements/${KEY}`)
    .matchHeader('authorization', SIGNED)
    .reply(200, undefined, { 'content-length': '10' })
    .get(`/statements/${KEY}`)
    .reply(200, '%PDF-1.7 x')
    .delete(`/statements/${KEY}`)
    .matchHeader('authorization', SIGNED)
    .reply(204);
  await store.put(KEY, Buffer.from('%PDF-1.7 x'), 'application/pdf');
  assert.equal(await store.head(KEY), { sizeBytes: 10 });
  assert.is((await store.get(KEY))!.toString(), '%PDF-1.7 x');
  await store.delete([KEY]);
  assert.ok(api.isDone());
});

s3('absent objects are null; a streamed put goes unsigned-payload with its length', async () => {
  const store = objectStoreFor(config());
  const api = nock(ENDPOINT)
    .head(`/statements/${KEY}`)
    .reply(404)
    .get(`/statements/${KEY}`)
    .reply(404, '<Error><Code>NoSuchKey</Code></Error>')
    .put(`/statements/${KEY}`)
    .matchHeader('x-amz-content-sha256', 'UNSIGNED-PAYLOAD')
    .matchHeader('content-length', '30')
    .reply(200);
  assert.is(await store.head(KEY), null);
  assert.is(await store.get(KEY), null);
  await store.put(KEY, chunks(3, 10), 'application/pdf', { expectedBytes: 30 });
  assert.ok(api.isDone());
});

s3('a refusal or an unreachable service is an ObjectStoreError naming the S3 code', async () => {
  const store = objectStoreFor(config());
  nock(ENDPOINT).get(`/statements/${KEY}`).reply(403, '<Error><Code>AccessDenied</Code></Error>');
  await store.get(KEY).then(
    () => assert.unreachable('accepted'),
    (error: unknown) => {
      assert.instance(error, ObjectStoreError);
      assert.match((error as Error).message, 'HTTP 403 AccessDenied');
    },
  );
  nock(ENDPOINT).head(`/statements/${KEY}`).replyWithError('connect ECONNREFUSED');
  await store.head(KEY).then(
    () => assert.unreachable('accepted'),
    (error: unknown) => assert.instance(error, ObjectStoreError),
  );
});

s3('a presigned PUT binds Content-Type, Content-Length and host, expires as asked, dated by the given clock', () => {
  const store = objectStoreFor(config());
  const url = new URL(store.presignPut(KEY, { contentType: 'application/pdf', sizeBytes: 5_000_000, expiresInSeconds: 900, now: new Date('2026-11-23T20:15:00Z') })!);
  assert.is(url.origin, ENDPOINT);
  assert.is(url.pathname, `/statements/${KEY}`);
  assert.is(url.searchParams.get('X-Amz-Expires'), '900');
  assert.is(url.searchParams.get('X-Amz-Date'), '20261123T201500Z');
  assert.is(url.searchParams.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
  assert.is(url.searchParams.get('X-Amz-Credential'), 'AKIDTEST/20261123/sa-east-1/s3/aws4_request');
  assert.is(url.searchParams.get('X-Amz-SignedHeaders'), 'content-length;content-type;host');
  assert.match(url.searchParams.get('X-Amz-Signature')!, /^[0-9a-f]{64}$/);
  // Another declared size signs differently: the bucket refuses a body of another length.
  const other = new URL(store.presignPut(KEY, { contentType: 'application/pdf', sizeBytes: 5_000_001, expiresInSeconds: 900, now: new Date('2026-11-23T20:15:00Z') })!);
  assert.is.not(other.searchParams.get('X-Amz-Signature'), url.searchParams.get('X-Amz-Signature'));
});

s3('OBJECT_STORE=s3 without its settings is a configuration error naming them', () => {
  assert.throws(() => objectStoreFor(loadConfig({ OBJECT_STORE: 's3', S3_ENDPOINT: ENDPOINT })), /S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY/);
});

s3.run();

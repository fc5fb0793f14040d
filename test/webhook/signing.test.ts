import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateSigningSecret, signedHeaders } from '../../application/webhook/signing.ts';
import { receiverAccepts } from '../support/webhook-verifier.ts';

const test = suite('webhook signing');

test('an independent verifier accepts our signature and rejects tampering, other secrets and stale timestamps', () => {
  const secret = generateSigningSecret();
  const body = JSON.stringify({ id: 'd1', event: 'ping', occurredAt: '2026-01-01T00:00:00.000Z', organizationId: 'o', data: { á: 'ç' } });
  const now = Math.floor(Date.now() / 1000);
  const headers = signedHeaders({ deliveryId: 'd1', event: 'ping', body, secret, previousSecret: null, timestamp: now });
  assert.ok(receiverAccepts(secret, headers, body, now));
  assert.is(headers['X-Service-Event'], 'ping');
  assert.is(headers['X-Service-Delivery'], 'd1');
  assert.not.ok(receiverAccepts(secret, headers, body.replace('ç', 'c'), now));
  assert.not.ok(receiverAccepts(generateSigningSecret(), headers, body, now));
  assert.not.ok(receiverAccepts(secret, headers, body, now + 301));
  assert.ok(receiverAccepts(secret, headers, body, now + 300));
});

test('during a rotation overlap the previous secret signs X-Service-Signature-Previous', () => {
  const [oldSecret, newSecret] = [generateSigningSecret(), generateSigningSecret()];
  const body = '{"x":1}';
  const headers = signedHeaders({ deliveryId: 'd', event: 'registry.updated', body, secret: newSecret, previousSecret: oldSecret, timestamp: 1_700_000_000 });
  assert.ok(receiverAccepts(newSecret, headers, body, 1_700_000_000));
  assert.ok(receiverAccepts(oldSecret, { ...headers, 'X-Service-Signature': headers['X-Service-Signature-Previous'] }, body, 1_700_000_000));
});

test.run();

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { refusalOf } from '../../application/webhook/address-policy.ts';
import { safePost } from '../../application/webhook/safe-http.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

const post = (url: string, extra: { allowPrivateNetworks?: boolean; timeoutMs?: number } = {}) =>
  safePost({ url, body: '{"hello":"world"}', headers: {}, timeoutMs: extra.timeoutMs ?? 2000, allowPrivateNetworks: extra.allowPrivateNetworks ?? false });

const matrix = suite('webhook address policy');

const REFUSED: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', 'carrierGradeNat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.10', 'reserved'], // TEST-NET-1
  ['198.51.100.7', 'reserved'], // TEST-NET-2
  ['203.0.113.9', 'reserved'], // TEST-NET-3
  ['198.18.0.1', 'reserved'], // benchmarking
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456:789a::1', 'uniqueLocal'],
  ['ff02::1', 'multicast'],
  ['::ffff:127.0.0.1', 'ipv4Mapped'],
  ['::ffff:169.254.169.254', 'ipv4Mapped'],
  ['::ffff:8.8.8.8', 'ipv4Mapped'],
  ['64:ff9b::a9fe:a9fe', 'rfc6052'], // NAT64 of 169.254.169.254
  ['64:ff9b:1::1', 'rfc6052'],
  ['2002:7f00:1::', '6to4'], // 6to4 of 127.0.0.1
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['::7f00:1', 'ipv4Compatible'], // ::127.0.0.1 in the deprecated IPv4-compatible form
  ['::127.0.0.1', 'ipv4Mapped'], // ipaddr.js reads a dotted tail as mapped: refused either way
  ['::ffff:0:a00:1', 'rfc6145'],
  ['2001:db8::1', 'reserved'], // documentation
  ['fec0::1', 'deprecatedSiteLocal'],
  ['not-an-ip', 'unparseable'],
];

matrix('every internal, special and IPv4-in-IPv6 range is refused, naming the range', () => {
  for (const [address, range] of REFUSED) assert.is(refusalOf(address), range, address);
});

matrix('public unicast addresses pass', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '200.147.67.142', '2606:4700:4700::1111', '2800:3f0:4001:80b::200e']) {
    assert.is(refusalOf(address), null, address);
  }
});

matrix.run();

const client = suite('webhook safe client against real receivers');
let receiver: Receiver;
let redirectTarget: Receiver;

client.before(async () => {
  redirectTarget = await startReceiver();
  receiver = await startReceiver((request) => {
    if (request.path === '/fail') return { status: 503 };
    if (request.path === '/to-metadata') return { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
    if (request.path === '/to-local') return { status: 307, headers: { location: `${redirectTarget.url}/stolen` } };
    if (request.path === '/slow') return 'hang';
    return { status: 204 };
  });
});

client.after(async () => {
  await receiver.close();
  await redirectTarget.close();
});

client('a receiver on 127.0.0.1 is refused unless private networks are allowed', async () => {
  const before = receiver.received.length;
  const refused = await post(`${receiver.url}/ok`);
  assert.is(refused.failure, 'refused');
  assert.match(refused.error!, /127\.0\.0\.1.*loopback/);
  assert.is(receiver.received.length, before, 'nothing reached the receiver');
  const allowed = await post(`${receiver.url}/ok`, { allowPrivateNetworks: true });
  assert.equal([allowed.ok, allowed.statusCode], [true, 204]);
  assert.is(receiver.received.at(-1)!.body, '{"hello":"world"}');
});

client('a name that resolves to 127.0.0.1 (localhost) is refused at resolution', async () => {
  const before = receiver.received.length;
  const outcome = await post(`http://localhost:${receiver.port}/ok`);
  assert.is(outcome.failure, 'refused');
  assert.match(outcome.error!, /loopback/);
  assert.is(receiver.received.length, before);
});

client('IPv6 literals and IPv4-mapped forms are refused before connecting', async () => {
  for (const host of ['[::1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::1]', '[fe80::1]', '[fd00::1]']) {
    const outcome = await post(`http://${host}:${receiver.port}/ok`);
    assert.is(outcome.failure, 'refused', host);
  }
  // WHATWG URL parsing turns decimal and hex hosts into dotted quads before we look.
  for (const host of ['2130706433', '0x7f000001', '0177.0.0.1', '169.254.169.254']) {
    assert.is((await post(`http://${host}:${receiver.port}/ok`)).failure, 'refused', host);
  }
});

client('redirects are never followed, not even to an internal address: a 3xx is a failure', async () => {
  const toMetadata = await post(`${receiver.url}/to-metadata`, { allowPrivateNetworks: true });
  assert.equal([toMetadata.ok, toMetadata.failure, toMetadata.statusCode], [false, 'redirect', 302]);
  assert.match(toMetadata.error!, /169\.254\.169\.254/);
  const toLocal = await post(`${receiver.url}/to-local`, { allowPrivateNetworks: true });
  assert.is(toLocal.failure, 'redirect');
  assert.is(redirectTarget.received.length, 0, 'the redirect target was never called');
});

client('a receiver that does not answer in time is a timeout; 5xx is an http failure; a closed port is a network failure', async () => {
  const slow = await post(`${receiver.url}/slow`, { allowPrivateNetworks: true, timeoutMs: 300 });
  assert.is(slow.failure, 'timeout');
  assert.ok(slow.durationMs >= 290 && slow.durationMs < 2000, String(slow.durationMs));
  const failing = await post(`${receiver.url}/fail`, { allowPrivateNetworks: true });
  assert.equal([failing.failure, failing.statusCode], ['http', 503]);
  const closed = await post('http://127.0.0.1:1/', { allowPrivateNetworks: true });
  assert.is(closed.failure, 'network');
  assert.match(closed.error!, /ECONNREFUSED/);
});

client.run();

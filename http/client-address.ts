import { BlockList, isIP } from 'node:net';
import type { Context } from 'koa';
import type { ClientOrigin } from '../domain/collection/commands.ts';

/** Which proxies may name the client (config TRUST_PROXY). */
export type ProxyTrust = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'addresses'; trusted: BlockList };

/** A socket's IPv4 address seen through an IPv6 listener (`::ffff:10.0.0.1`) as the IPv4 it is. */
const plain = (address: string) => (address.toLowerCase().startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address);
const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** TRUST_PROXY as a rule; a value that is none of its forms stops the service at start. */
export function parseTrustProxy(value: string): ProxyTrust {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false' || text === 'off' || text === '0') return { kind: 'none' };
  if (/^\d+$/.test(text)) return { kind: 'hops', hops: Number(text) };
  const trusted = new BlockList();
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [address = '', prefix] = entry.split('/');
    const kind = isIP(address);
    if (!kind || (prefix !== undefined && !(/^\d+$/.test(prefix) && Number(prefix) <= (kind === 4 ? 32 : 128)))) {
      throw new Error(`TRUST_PROXY: "${entry}" is not an address or a CIDR block (use false, a hop count, or a list such as 10.0.0.0/8,127.0.0.1)`);
    }
    if (prefix === undefined) trusted.addAddress(address, family(address));
    else trusted.addSubnet(address, Number(prefix), family(address));
  }
  return { kind: 'addresses', trusted };
}

/** The X-Forwarded-For entries, leftmost (the furthest claimed) first. */
const chainOf = (header: string) =>
  header
    .split(',')
    .map((entry) => plain(entry.trim()))
    .filter(Boolean);

/**
 * The client's address: the socket's, unless trusted proxies stand between. Only entries that a
 * trusted proxy appended are believed; anything a client writes to the left of them is not, so a
 * client cannot pick its own address (and with it a fresh rate-limit bucket).
 */
export function clientAddress(socketAddress: string, forwardedFor: string, trust: ProxyTrust): string {
  const socket = plain(socketAddress);
  if (trust.kind === 'none') return socket;
  const chain = chainOf(forwardedFor);
  if (trust.kind === 'hops') {
    // Each of the N proxies appended the address it received from: the client is N entries back.
    const claimed = chain.length >= trust.hops ? chain[chain.length - trust.hops] : chain[0];
    return claimed && isIP(claimed) ? claimed : socket;
  }
  let address = socket;
  for (let i = chain.length - 1; i >= 0 && isIP(address) && trust.trusted.check(address, family(address)); i--) {
    if (!isIP(chain[i]!)) break;
    address = chain[i]!;
  }
  return address;
}

/** Where a request came from, for evidence: the client address by TRUST_PROXY (ctx.ip), the socket's peer and X-Forwarded-For untouched. */
export const originOf = (ctx: Context): ClientOrigin => ({
  ip: ctx.ip || null,
  socketAddress: ctx.req.socket.remoteAddress ? plain(ctx.req.socket.remoteAddress) : null,
  forwardedFor: ctx.get('x-forwarded-for') || null,
});

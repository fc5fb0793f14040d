import ipaddr from 'ipaddr.js';

/**
 * Whether a resolved address may receive a delivery. Only what ipaddr.js calls `unicast` (public
 * unicast) passes: loopback, RFC 1918, link-local (cloud metadata at 169.254.169.254),
 * unspecified, CGNAT, multicast, broadcast, reserved and documentation ranges, IPv6 unique-local
 * and link-local all have a range name of their own. IPv6 forms that carry an IPv4 address
 * (mapped, NAT64, 6to4, Teredo, RFC 6145) are refused whatever the IPv4 inside, so no IPv4 rule
 * can be walked around through IPv6.
 *
 * Returns null when allowed, else the name of the range that refuses it.
 */
export function refusalOf(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'unparseable';
  }
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv6' && isIpv4Compatible(parsed as ipaddr.IPv6)) return 'ipv4Compatible';
  return null;
}

/** ::a.b.c.d (RFC 4291's deprecated IPv4-compatible form): ipaddr.js calls it unicast. */
function isIpv4Compatible(address: ipaddr.IPv6): boolean {
  return address.parts.slice(0, 6).every((part) => part === 0);
}

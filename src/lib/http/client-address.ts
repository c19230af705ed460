import ipaddr from 'ipaddr.js';

/** What an address nobody can read counts as: one caller (a socket gone, or a trusted hop that wrote junk). */
const UNKNOWN = 'unknown';

/**
 * The caller a per-address limit counts (docs/security.md, "Addresses"): req.ip, which is the peer's address or,
 * behind a proxy TRUST_PROXY names, the client's address the proxy forwarded, read as one caller has it:
 * - an IPv4 address whole, also when written IPv4-mapped (`::ffff:203.0.113.5`, as a dual-stack socket or a
 *   proxy may give it);
 * - an IPv6 address by its /64 (`2001:db8:a:b::/64`): a host or a home is given a whole /64 (RFC 6177), picks
 *   addresses in it at will (privacy addresses, RFC 8981), so counted by /128 one host would be 2^64 callers.
 * The address is parsed by ipaddr.js, the parser Express's proxy-addr decides req.ip with; what it cannot read
 * (only a trusted hop can put that in req.ip) counts as one caller, `unknown`, so junk never makes a fresh one.
 */
export function clientAddress(req: { ip?: string }): string {
  const ip = req.ip;
  if (!ip || !ipaddr.isValid(ip)) return UNKNOWN;
  const address = ipaddr.parse(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${new ipaddr.IPv6([...v6.parts.slice(0, 4), 0, 0, 0, 0]).toString()}/64`;
}

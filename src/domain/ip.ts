// IP allowlist checks: CIDRs (or single addresses), IPv4 and IPv6, IPv4-mapped IPv6 treated as IPv4.
import ipaddr from 'ipaddr.js';

/** Only dotted quads for IPv4: ipaddr.js also takes `10.1` (10.0.0.1), `0x7f.1` and octal, which no operator means. */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/** Normalises an address; `::ffff:1.2.3.4` becomes `1.2.3.4`. Null when not an address. */
export function normalizeAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const parsed = parseAddress(address);
  if (!parsed) return null;
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

/** Parses `a.b.c.d/n`, `x::/n` or a bare address into a canonical CIDR string; null when malformed. */
export function parseCidr(text: string): string | null {
  const value = text.trim();
  try {
    if (value.includes('/')) {
      if (!parseAddress(value.slice(0, value.indexOf('/')))) return null;
      const [addr, bits] = ipaddr.parseCIDR(value);
      const a =
        addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()
          ? (addr as ipaddr.IPv6).toIPv4Address()
          : addr;
      const prefix = a.kind() === 'ipv4' && addr.kind() === 'ipv6' ? Math.max(0, bits - 96) : bits;
      return `${a.toString()}/${prefix}`;
    }
    const a = normalizeAddress(value);
    if (!a) return null;
    return `${a.toString()}/${a.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return null;
  }
}

/** True when the address falls in any of the CIDRs. */
export function addressAllowed(address: string, cidrs: readonly string[]): boolean {
  const a = normalizeAddress(address);
  if (!a) return false;
  for (const cidr of cidrs) {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    if (range.kind() === a.kind() && a.match(range, bits)) return true;
  }
  return false;
}

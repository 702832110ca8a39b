// Which push URLs are acceptable: http(s) to a public address. IP literals are checked here (at
// registration and again before each request); names are checked after resolution, at connect time.
import ipaddr from 'ipaddr.js';

/** Longest URL we store. */
export const MAX_PUSH_URL_LENGTH = 2000;

/** The parsed URL when acceptable, else why not. */
export type PushUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT (100.64.0.0/10)',
  private: 'private',
  reserved: 'reserved or documentation',
  uniqueLocal: 'unique local (fc00::/7)',
  deprecatedSiteLocal: 'site-local',
  teredo: 'Teredo tunnel',
  discard: 'discard-only',
  benchmarking: 'benchmarking',
  orchid2: 'ORCHID',
  deprecatedOrchid: 'ORCHID',
  as112: 'AS112',
  as112v6: 'AS112',
  amt: 'AMT',
  segmentRouting: 'segment routing',
  droneRemoteIdProtocolEntityTags: 'DRIP',
};

function v4Reason(a: ipaddr.IPv4): string | null {
  const range = a.range();
  return range === 'unicast' ? null : `${RANGE_NAMES[range] ?? range} address ${a.toString()}`;
}

// IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, 6to4) are judged by that address.
function embeddedV4(a: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = a.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  switch (a.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return v4(p[6], p[7]);
    case 'rfc6052':
      return p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0 ? v4(p[6], p[7]) : null;
    case '6to4':
      return v4(p[1], p[2]);
    default:
      return null;
  }
}

/** Why this IP address may not receive pushes (loopback, private, link-local...), or null when it is public. */
export function nonPublicReason(address: string): string | null {
  const text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return `not an IP address: ${address}`;
  const a = ipaddr.parse(text);
  if (a.kind() === 'ipv4') return v4Reason(a as ipaddr.IPv4);
  const v6 = a as ipaddr.IPv6;
  const range = v6.range();
  if (['ipv4Mapped', 'rfc6145', 'rfc6052', '6to4'].includes(range)) {
    const inner = embeddedV4(v6);
    if (!inner) return `local-use NAT64 address ${v6.toString()}`;
    const reason = v4Reason(inner);
    return reason ? `${reason} (inside ${v6.toString()})` : null;
  }
  if (range === 'unicast' && v6.parts.slice(0, 6).every((w) => w === 0))
    return `IPv4-compatible address ${v6.toString()}`;
  return range === 'unicast' ? null : `${RANGE_NAMES[range] ?? range} address ${v6.toString()}`;
}

/** True for names that always mean this machine (RFC 6761). */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The host of a URL as an IP literal (brackets removed), or null for a name. */
export function ipLiteralHost(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) ? host : null;
}

/**
 * Checks a push URL: absolute http(s), a host, at most 2000 characters and, unless `allowPrivate`, not a
 * loopback/private/special IP literal nor a localhost name. Names that resolve inside are refused at connect time.
 */
export function checkPushUrl(text: string, opts: { allowPrivate: boolean }): PushUrlCheck {
  const trimmed = text.trim();
  if (trimmed.length > MAX_PUSH_URL_LENGTH)
    return { ok: false, reason: `longer than ${MAX_PUSH_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return { ok: false, reason: 'not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `scheme ${url.protocol} is not http or https` };
  if (!url.hostname) return { ok: false, reason: 'no host' };
  if (opts.allowPrivate) return { ok: true, url };
  if (isLocalhostName(url.hostname))
    return { ok: false, reason: `${url.hostname} is this machine; push URLs must be public` };
  const literal = ipLiteralHost(url);
  if (literal) {
    const reason = nonPublicReason(literal);
    if (reason) return { ok: false, reason: `${reason} is not public; push URLs must be public` };
  }
  return { ok: true, url };
}

// Whether the service's public URL (YONA_PUBLIC_URL, the base of the short, removal and verification links it
// texts) is one a recipient's phone can open: not this machine, not a private network.
import ipaddr from 'ipaddr.js';
import { ipLiteralHost, isLocalhostName, nonPublicReason } from './push-url.ts';

/** Names that only mean something on a local network (RFC 6762 .local, RFC 8375 .home.arpa, .internal, .lan). */
const LOCAL_SUFFIXES = ['.local', '.home.arpa', '.internal', '.lan'];

/**
 * Why links under this public URL would not open on a recipient's phone (`localhost is this machine`, `private
 * address 10.0.0.5`, ...), or null when its host may be public. A name is judged by its form only (it is not
 * resolved): a localhost name, a local-network suffix or a single label (`yona`) is not public.
 */
export function localPublicUrlReason(publicUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return `${publicUrl} is not an absolute URL`;
  }
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  if (isLocalhostName(host)) return `${host} is this machine`;
  const literal = ipLiteralHost(url);
  if (literal) return nonPublicReason(literal);
  if (LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return `${host} is a local-network name`;
  if (!host.includes('.')) return `${host} is not a public name (it has no domain)`;
  return null;
}

/** True when a listener on this host is reachable from this machine only (a loopback address or name). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isLocalhostName(bare)) return true;
  return ipaddr.isValid(bare) && ipaddr.process(bare).range() === 'loopback';
}

/**
 * Why the links the service texts would not open although its HTTPS listener takes connections from other
 * machines (`httpsHost` not loopback, `publicUrl` local), or null. Logged at start as `config.public_url_local`.
 */
export function publicUrlLocalReason(httpsHost: string, publicUrl: string): string | null {
  return isLoopbackHost(httpsHost) ? null : localPublicUrlReason(publicUrl);
}

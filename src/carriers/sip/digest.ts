// HTTP digest authentication as SIP uses it (RFC 3261 22.4 over RFC 2617: MD5, with or without qop=auth):
// the Authorization (401) or Proxy-Authorization (407) value answering a trunk's challenge.
import { createHash, randomBytes } from 'node:crypto';

/** The parameters of a `Digest ...` challenge (WWW-Authenticate or Proxy-Authenticate). */
export function parseChallenge(value: string): Record<string, string> {
  const params: Record<string, string> = {};
  const body = value.replace(/^\s*Digest\s+/i, '');
  for (const m of body.matchAll(/([a-zA-Z0-9_-]+)\s*=\s*(?:"([^"]*)"|([^,\s]+))/g))
    params[m[1].toLowerCase()] = m[2] ?? m[3];
  return params;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

/** The credentials header value for `method uri`, answering `challenge`; throws for an algorithm other than MD5. */
export function digestAuthorization(o: {
  challenge: string;
  method: string;
  uri: string;
  username: string;
  password: string;
  nc?: number;
}): string {
  const c = parseChallenge(o.challenge);
  const algorithm = c.algorithm ?? 'MD5';
  if (!/^MD5(-sess)?$/i.test(algorithm)) throw new Error(`digest algorithm ${algorithm} is not supported (MD5 only)`);
  const realm = c.realm ?? '';
  const nonce = c.nonce ?? '';
  const cnonce = randomBytes(8).toString('hex');
  let ha1 = md5(`${o.username}:${realm}:${o.password}`);
  if (/-sess$/i.test(algorithm)) ha1 = md5(`${ha1}:${nonce}:${cnonce}`);
  const ha2 = md5(`${o.method}:${o.uri}`);
  const qop = c.qop
    ?.split(',')
    .map((q) => q.trim())
    .includes('auth')
    ? 'auth'
    : undefined;
  const nc = (o.nc ?? 1).toString(16).padStart(8, '0');
  const response = qop ? md5(`${ha1}:${nonce}:${nc}:${cnonce}:${qop}:${ha2}`) : md5(`${ha1}:${nonce}:${ha2}`);
  const parts = [
    `username="${o.username}"`,
    `realm="${realm}"`,
    `nonce="${nonce}"`,
    `uri="${o.uri}"`,
    `response="${response}"`,
    `algorithm=${algorithm}`,
  ];
  if (c.opaque !== undefined) parts.push(`opaque="${c.opaque}"`);
  if (qop) parts.push(`qop=${qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  return `Digest ${parts.join(', ')}`;
}

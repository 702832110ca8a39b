// Which encoding a reply takes from the request's Accept header (RFC 9110 12.5.1): when the header names JSON or
// XML explicitly and prefers one (by q-value, then by order), that one; when it is absent, names neither, or
// accepts both alike through wildcards only (`*/*`), the request's own encoding.
import type { Encoding } from './codec.ts';

const TYPES: Record<Encoding, readonly string[]> = {
  json: ['application/json', 'text/json'],
  xml: ['application/xml', 'text/xml'],
};

interface Choice {
  /** The q-value the header gives this encoding (0: not acceptable). */
  q: number;
  /** Whether a media range names it (not only a wildcard), and where it first does. */
  named: boolean;
  order: number;
}

function qOf(params: string[]): number {
  for (const p of params) {
    const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
    if (m) {
      const q = Number(m[1]);
      return Number.isFinite(q) ? Math.min(1, Math.max(0, q)) : 1;
    }
  }
  return 1;
}

function choiceFor(encoding: Encoding, ranges: Array<{ type: string; q: number; order: number }>): Choice {
  const named = ranges.filter((r) => TYPES[encoding].includes(r.type));
  if (named.length > 0)
    return { q: Math.max(...named.map((r) => r.q)), named: true, order: Math.min(...named.map((r) => r.order)) };
  const wild = ranges.filter(
    (r) =>
      r.type === '*/*' || (r.type.endsWith('/*') && TYPES[encoding].some((t) => t.startsWith(r.type.slice(0, -1)))),
  );
  return { q: wild.length > 0 ? Math.max(...wild.map((r) => r.q)) : 0, named: false, order: Infinity };
}

/** The reply's encoding for this Accept header and the request's encoding. */
export function replyEncoding(accept: string | undefined, requested: Encoding): Encoding {
  if (accept === undefined || accept.trim() === '') return requested;
  const ranges = accept
    .split(',')
    .map((part, order) => {
      const [type, ...params] = part.split(';');
      return { type: type.trim().toLowerCase(), q: qOf(params), order };
    })
    .filter((r) => r.type !== '');
  const json = choiceFor('json', ranges);
  const xml = choiceFor('xml', ranges);
  if (!json.named && !xml.named) return requested;
  if (json.q === 0 && xml.q === 0) return requested; // neither acceptable: answer as asked rather than not at all
  if (json.q !== xml.q) return json.q > xml.q ? 'json' : 'xml';
  if (json.named !== xml.named) return json.named ? 'json' : 'xml';
  return json.order < xml.order ? 'json' : xml.order < json.order ? 'xml' : requested;
}

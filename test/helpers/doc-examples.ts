// Reads the examples of the API pages (docs/api/*.md): `sh setup` blocks of `yona admin` commands, and pairs of
// fenced blocks marked `json request` / `json reply` or `xml request` / `xml reply` (a request block may name
// its path: `json request /api/test`, and may say `eventually`: its reply is what the request answers once the
// bundled simulator's receipt came back, so it is asked again until it matches). Compares a documented reply with
// a received one.
import { readFileSync } from 'node:fs';
import xml2js from 'xml2js';

export interface Example {
  /** The `## heading` the example sits under. */
  section: string;
  encoding: 'json' | 'xml';
  path: string;
  request: string;
  reply: string;
  line: number;
  /** Asked again until the reply matches (a report that waits for the simulator's receipt). */
  eventually: boolean;
}

export interface Page {
  setup: string[][];
  examples: Example[];
}

const FENCE = /^```([^\n]*)\n([\s\S]*?)^```$/gm;

/** The setup commands (arguments after `yona admin`) and the examples of a page, in page order. */
export function readPage(file: string): Page {
  const text = readFileSync(file, 'utf8');
  const page: Page = { setup: [], examples: [] };
  let pending: Omit<Example, 'reply'> | undefined;
  for (const m of text.matchAll(FENCE)) {
    const [kind, encoding, role, ...rest] = [m[1].trim(), ...m[1].trim().split(/\s+/)];
    const path = rest.find((word) => word.startsWith('/'));
    const eventually = rest.includes('eventually');
    const body = m[2];
    const line = text.slice(0, m.index).split('\n').length;
    const section = [...text.slice(0, m.index).matchAll(/^## (.+)$/gm)].pop()?.[1] ?? '(page preamble)';
    if (kind === 'sh setup') {
      for (const cmd of body.split('\n').filter((l) => l.trim())) {
        if (!cmd.startsWith('yona admin '))
          throw new Error(`${file}:${line}: a setup line must be a yona admin command: ${cmd}`);
        page.setup.push(cmd.slice('yona admin '.length).trim().split(/\s+/));
      }
      continue;
    }
    if ((encoding !== 'json' && encoding !== 'xml') || (role !== 'request' && role !== 'reply')) continue;
    if (role === 'request') {
      if (pending) throw new Error(`${file}:${pending.line}: request without a reply`);
      pending = { section, encoding, path: path ?? '/api', request: body.trim(), line, eventually };
    } else {
      if (!pending || pending.encoding !== encoding)
        throw new Error(`${file}:${line}: ${encoding} reply without a ${encoding} request before it`);
      page.examples.push({ ...pending, reply: body.trim() });
      pending = undefined;
    }
  }
  if (pending) throw new Error(`${file}:${pending.line}: request without a reply`);
  return page;
}

/** A documented value standing for any value (ids of tokens, times of day). */
export const ANY = '…';
/** Fields that hold the time of the call: compared by presence only. */
const TIMES = new Set(['date', 'expiration_date', 'created_at', 'timing']);

/** Differences between a documented reply and a received one, as `path: documented != received` lines. */
export function differences(documented: unknown, received: unknown, path = ''): string[] {
  if (documented === ANY || TIMES.has(path.split('.').pop() ?? '')) {
    return received === undefined ? [`${path}: missing`] : [];
  }
  if (Array.isArray(documented) && Array.isArray(received)) {
    if (documented.length !== received.length)
      return [`${path}: ${documented.length} items documented, ${received.length} received`];
    return documented.flatMap((d, i) => differences(d, received[i], `${path}[${i}]`));
  }
  if (isObject(documented) && isObject(received)) {
    const keys = new Set([...Object.keys(documented), ...Object.keys(received)]);
    return [...keys].flatMap((k) => differences(documented[k], received[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(documented) === JSON.stringify(received)
    ? []
    : [`${path}: documented ${JSON.stringify(documented)}, received ${JSON.stringify(received)}`];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An XML document as xml2js reads it (whitespace between elements ignored). */
export function parseXml(text: string): Promise<unknown> {
  return new xml2js.Parser({ explicitArray: false, trim: true }).parseStringPromise(text);
}

/** The `user.username` of a request body, JSON or XML. */
export function usernameOf(example: Example): string {
  if (example.encoding === 'xml') return /<user>\s*<username>([^<]+)<\/username>/.exec(example.request)?.[1] ?? '';
  const doc = JSON.parse(example.request) as Record<string, { user?: { username?: string } }>;
  return Object.values(doc)[0]?.user?.username ?? '';
}

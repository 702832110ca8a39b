// Fuzz over HTTP on every store: the documented document of every operation (test/fixtures/fuzz/corpus.json),
// mutated by a PRNG seeded from the corpus (values swapped for hostile ones, keys dropped, renamed or added,
// values wrapped in arrays and `{_: ...}`), sent as JSON and XML to /api and /api/test by a reseller with credit,
// plus raw byte mutations of the JSON text; a field of some bodies is replaced by a value nested in arrays, objects or
// XML elements up to 100,000 levels deep, or by 50,000 sibling elements; and every body carries a draw of every
// header the API reads (Authorization, Content-Type, Accept, Accept-Language, Idempotency-Key and its near misses,
// X-Forwarded-For, Forwarded, X-Forwarded-Proto). No reply is 998 or 999, every reply is HTTP 200 with an integer
// status within 1 s, and the service still answers afterwards. FUZZ_ITERATIONS and FUZZ_SEED override the
// defaults (`npm run faults` runs 10,000 bodies per store).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import xml2js from 'xml2js';
import { mulberry32 } from '../helpers/random.ts';
import { storeTargets } from '../helpers/stores.ts';
import type { TestService } from '../helpers/service.ts';
import { startSendingService } from '../operations/send-helpers.ts';

const corpus = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/fuzz/corpus.json'), 'utf8')) as {
  seed: number;
  documents: Record<string, Record<string, unknown>>;
  hostile: unknown[];
  headers: Record<string, { usual: string; odds: number; values: string[] }>;
  nesting: { depths: number[]; elements: number[] };
};
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? corpus.seed);
const targets = await storeTargets();
/** The slowest reply any body may get. */
const MAX_REPLY_MS = 1000;
/** Stands in a document for the nested value spliced into its text. */
const DEEP = '__DEEP__';

type Doc = Record<string, unknown>;

function mutator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const hostile = (): unknown => {
    const v = pick(corpus.hostile);
    if (v === 'LONG') return 'x'.repeat(1 + Math.floor(random() * 20_000));
    if (v === 'EMOJI') return '😀'.repeat(1 + Math.floor(random() * 700));
    return structuredClone(v);
  };
  // Every object of a document, with the key path to it.
  const objects = (value: unknown, out: Doc[] = []): Doc[] => {
    if (Array.isArray(value)) for (const v of value) objects(v, out);
    else if (value !== null && typeof value === 'object') {
      out.push(value as Doc);
      for (const v of Object.values(value as Doc)) objects(v, out);
    }
    return out;
  };
  const mutate = (doc: Doc): Doc => {
    const copy = structuredClone(doc);
    const rounds = 1 + Math.floor(random() * 3);
    for (let i = 0; i < rounds; i++) {
      const target = pick(objects(copy));
      const keys = Object.keys(target);
      const key = keys.length > 0 ? pick(keys) : 'field';
      switch (pick(['value', 'value', 'value', 'drop', 'add', 'rename', 'array', 'text'] as const)) {
        case 'value':
          target[key] = hostile();
          break;
        case 'drop':
          delete target[key];
          break;
        case 'add':
          target[pick(['extra', 'x_custom', key, `${key}s`, 'user', '$', '_'])] = hostile();
          break;
        case 'rename':
          target[`${key}${pick(['', 'x', '_', 'Id'])}`.toUpperCase()] = target[key];
          delete target[key];
          break;
        case 'array':
          target[key] = [target[key], hostile()];
          break;
        case 'text':
          target[key] = { _: target[key], $: { id: hostile() } };
          break;
      }
    }
    return copy;
  };
  const flipBytes = (text: string): Buffer => {
    const bytes = Buffer.from(text);
    const flips = 1 + Math.floor(random() * 4);
    for (let i = 0; i < flips; i++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
    return bytes;
  };
  /** A draw of every header the API reads: its usual value, or by its odds another (at most one LONG per body). */
  const headers = (token: string): Record<string, string> => {
    const out: Record<string, string> = {};
    let long = false;
    for (const [name, { usual, odds, values }] of Object.entries(corpus.headers)) {
      let value = random() < odds ? pick(values) : usual;
      if (value === 'ABSENT' || (value === 'LONG' && long)) continue;
      if (value === 'LONG') {
        long = true;
        value = 'x'.repeat(8000);
      }
      out[name] = value.replaceAll('TOKEN', token).replace('KEY', `key-${Math.floor(random() * 8)}`);
    }
    return out;
  };
  /** A value nested `depth` levels deep, as JSON text (arrays, objects, or both) and as XML elements. */
  const nested = (depth: number): { json: string; xml: string } => {
    const form = pick(['array', 'object', 'mixed', 'text'] as const);
    const open = { array: '[', object: '{"n":', mixed: '[{"n":', text: '{"_":' }[form];
    const close = { array: ']', object: '}', mixed: '}]', text: '}' }[form];
    const levels = form === 'mixed' ? Math.ceil(depth / 2) : depth;
    return {
      json: `${open.repeat(levels)}"x"${close.repeat(levels)}`,
      xml: `${'<n>'.repeat(depth)}x${'</n>'.repeat(depth)}`,
    };
  };
  /** Many sibling elements (and their JSON array), for the element count. */
  const wide = (count: number): { json: string; xml: string } => ({
    json: `[${Array(count).fill('"x"').join(',')}]`,
    xml: '<n>x</n>'.repeat(count),
  });
  const deepValue = () => (random() < 0.8 ? nested(pick(corpus.nesting.depths)) : wide(pick(corpus.nesting.elements)));
  /** Replaces a field of the document (or adds one) with the placeholder for a deep value. */
  const plantDeep = (doc: Doc): void => {
    const target = pick(objects(doc));
    const keys = Object.keys(target);
    target[keys.length > 0 && random() < 0.7 ? pick(keys) : 'extra'] = DEEP;
  };
  return { pick, mutate, flipBytes, random, headers, deepValue, plantDeep };
}

/** The status of a reply, in whichever encoding it came (the Accept header may ask for the other). */
function statusOf(res: { httpStatus: number; contentType: string; text: string }): number {
  if (res.httpStatus !== 200) return NaN;
  if (res.contentType.includes('xml')) return Number(/<status>(-?\d+)<\/status>/.exec(res.text)?.[1]);
  try {
    return JSON.parse(res.text).status;
  } catch {
    return NaN;
  }
}

/** XML of a document (xml2js's model: `$` attributes, `_` text), or undefined when it has no XML form. */
function toXml(root: string, doc: Doc): string | undefined {
  try {
    return new xml2js.Builder({ headless: true, renderOpts: { pretty: false } }).buildObject({ [root]: doc });
  } catch {
    return undefined;
  }
}

for (const target of targets) {
  describe(`fuzz over every operation (${target.name}, seed ${SEED}, ${ITERATIONS} bodies)`, () => {
    let t: TestService;
    let token: string;
    before(async () => {
      t = await startSendingService(target, { env: { YONA_OTP_RESEND_SECONDS: '0' } });
      token = (await t.account('fuzzer', ['--reseller'])).token;
      await t.admin('verify-sender', 'fuzzer', 'Yona');
      await t.admin('create-account', 'sub', '--password', 'secret-pw', '--parent', 'fuzzer');
    });
    after(() => t.close());

    it('answers every mutated body, with every header drawn, within 1 s with a status other than 998 and 999', async () => {
      const { pick, mutate, flipBytes, random, headers, deepValue, plantDeep } = mutator(mulberry32(SEED));
      const roots = Object.keys(corpus.documents);
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      let slowest = 0;
      let deepBodies = 0;
      for (let i = 0; i < ITERATIONS; i++) {
        const root = pick(roots);
        const doc = mutate({
          user: { username: 'fuzzer' },
          ...JSON.parse(JSON.stringify(corpus.documents[root]).replaceAll('"USER"', '"fuzzer"')),
        });
        const deep = random() < 0.2 ? deepValue() : undefined;
        if (deep) {
          plantDeep(doc);
          deepBodies++;
        }
        const json = JSON.stringify({ [root]: doc }).replace(`"${DEEP}"`, deep?.json ?? '""');
        const form = random();
        const xml = form < 0.3 ? toXml(root, doc)?.replace(DEEP, deep?.xml ?? '') : undefined;
        const body = form >= 0.9 ? flipBytes(json) : (xml ?? json);
        const sent = headers(token);
        const started = performance.now();
        const res = await t.post(body as string, {
          contentType: 'Content-Type' in sent ? undefined : xml ? 'application/xml' : 'application/json',
          headers: sent,
          dryRun: random() < 0.5,
        });
        const ms = performance.now() - started;
        slowest = Math.max(slowest, ms);
        const status = statusOf(res);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        const bad = !Number.isInteger(status) || status === 998 || status === 999;
        if (bad || ms > MAX_REPLY_MS)
          failures.push(
            `#${i} (seed ${SEED}) ${Math.round(ms)} ms ${JSON.stringify(Object.keys(sent))} ${String(body).slice(0, 300)} -> ${res.httpStatus} ${res.text.slice(0, 200)}`,
          );
      }
      const figures = [...statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}:${n}`)
        .join(' ');
      console.log(
        `FAULTS fuzz (${target.name}): ${ITERATIONS} bodies (${deepBodies} nested or wide), ${failures.length} answered 998/999 or took over ${MAX_REPLY_MS} ms, slowest ${Math.round(slowest)} ms; statuses ${figures}`,
      );
      assert.deepEqual(failures, []);
      assert.equal((await t.api('balance', { user: { username: 'fuzzer' } }, { token })).status, 0);
    });
  });
}

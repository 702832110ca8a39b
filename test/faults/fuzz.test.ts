// Fuzz over HTTP on every store: the documented document of every operation (test/fixtures/fuzz/corpus.json),
// mutated by a PRNG seeded from the corpus (values swapped for hostile ones, keys dropped, renamed or added,
// values wrapped in arrays and `{_: ...}`), sent as JSON and XML to /api and /api/test by a reseller with credit,
// plus raw byte mutations of the JSON text. No reply is 998 or 999, every reply is HTTP 200 with an integer status,
// and the service still answers afterwards. FUZZ_ITERATIONS and FUZZ_SEED override the defaults.
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
};
const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? corpus.seed);
const targets = await storeTargets();

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
  return { pick, mutate, flipBytes, random };
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

    it('answers every mutated body with a status other than 998 and 999', async () => {
      const { pick, mutate, flipBytes, random } = mutator(mulberry32(SEED));
      const roots = Object.keys(corpus.documents);
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        const root = pick(roots);
        const doc = mutate({
          user: { username: 'fuzzer' },
          ...JSON.parse(JSON.stringify(corpus.documents[root]).replaceAll('"USER"', '"fuzzer"')),
        });
        const json = JSON.stringify({ [root]: doc });
        const form = random();
        const xml = form < 0.3 ? toXml(root, doc) : undefined;
        const body = form >= 0.9 ? flipBytes(json) : (xml ?? json);
        const res = await t.post(body as string, {
          contentType: xml ? 'application/xml' : 'application/json',
          token,
          dryRun: random() < 0.5,
        });
        const status =
          res.httpStatus === 200
            ? xml
              ? Number(/<status>(-?\d+)<\/status>/.exec(res.text)?.[1])
              : JSON.parse(res.text).status
            : NaN;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (!Number.isInteger(status) || status === 998 || status === 999)
          failures.push(
            `#${i} (seed ${SEED}) ${String(body).slice(0, 300)} -> ${res.httpStatus} ${res.text.slice(0, 200)}`,
          );
      }
      const figures = [...statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}:${n}`)
        .join(' ');
      console.log(
        `FAULTS fuzz (${target.name}): ${ITERATIONS} bodies, ${failures.length} answered 998/999; statuses ${figures}`,
      );
      assert.deepEqual(failures, []);
      assert.equal((await t.api('balance', { user: { username: 'fuzzer' } }, { token })).status, 0);
    });
  });
}

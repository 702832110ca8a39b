// Fuzz of the web console over HTTPS on every store: every route the console's router registers, POST form bodies
// (the fields of the forms its pages show, plus a pool of likely names) and query strings mutated by a seeded PRNG
// (values swapped for hostile ones: NUL and other controls, bytes that are not UTF-8, raw or percent-encoded, half
// a surrogate pair, huge numbers, long and odd text; fields dropped, repeated, renamed or added; the encoded body's
// bytes flipped or cut), signed in or not. No reply is a 500 (or says 998), none takes over 1 s, and the console
// still serves afterwards. CONSOLE_FUZZ_ITERATIONS and CONSOLE_FUZZ_SEED override the defaults.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { statusMessage } from '../../src/domain/status.ts';
import { ConsoleClient, type ConsoleReply } from '../helpers/console-client.ts';
import { consoleRoutes, routePath, type ConsoleRoute } from '../helpers/console-routes.ts';
import { mulberry32 } from '../helpers/random.ts';
import type { TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { newSender, startSendingService } from '../operations/send-helpers.ts';

const ITERATIONS = Number(process.env.CONSOLE_FUZZ_ITERATIONS ?? 1000);
const SEED = Number(process.env.CONSOLE_FUZZ_SEED ?? 20261127);
const LIMIT_MS = 1000;
const PASSWORD = 'secret-pw';

/** A field's value: text (percent-encoded when sent) or bytes sent as they are. */
type Value = string | { raw: string | Buffer };
type Field = [string, Value];

const FIELD_POOL = [
  'username',
  'password',
  'name',
  'phone',
  'phones',
  'message',
  'source',
  'amount',
  'amount_int',
  'code',
  'url',
  'type',
  'id',
  'token',
  'csv',
  'credits',
  'ip',
  'pending',
  'current',
  'new',
  'repeat',
  'back',
  'action',
  'list',
  'timing',
  'link',
  'unsubscribe',
  'dynamic',
  'opening',
  'new_username',
  'active',
  'secret',
  'label',
];
const QUERY_POOL = [
  'before',
  'after',
  'q',
  'status',
  'phone',
  'from',
  'to',
  'campaign',
  'channel',
  'kind',
  'ok',
  'error',
  'back',
  'out',
  'id',
];

function mutator(random: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  // Characters no field may hold, two picks in five; then every other kind of odd value.
  const refused = (): Value =>
    pick<() => Value>([
      () => 'a\u0000b',
      () => `x${String.fromCharCode(Math.floor(random() * 32))}y`,
      () => ({ raw: '%FF' }),
      () => ({ raw: 'a%C3%28' }),
      () => ({ raw: '%ED%A0%80' }),
      () => ({ raw: Buffer.from([0x61, 0xff, 0xfe, 0x62]) }),
      () => ({ raw: '%00' }),
    ])();
  const hostile = (): Value =>
    random() < 0.4
      ? refused()
      : pick<() => Value>([
          () => ({ raw: '%' }),
          () => ({ raw: '%zz%4' }),
          () => ({ raw: '+%2B+' }),
          () => '\ud83d\ude00'.repeat(1 + Math.floor(random() * 300)),
          () => 'x'.repeat(1 + Math.floor(random() * 20_000)),
          () => '',
          () => '   ',
          () => '-1',
          () => '0',
          () => '99999999999999999999999',
          () => '1e309',
          () => '12.5',
          () => 'NaN',
          () => '052-123-4567',
          () => '+972521234567',
          () => '0521234567\n0521234568',
          () => "'; drop table accounts; --",
          () => '<script>alert(1)</script>',
          () => "=cmd|' /C calc'!A0",
          () => '../../etc/passwd',
          () => 'https://127.0.0.1:1/hook',
          () => '31/02/26 25:61',
          () => '2040-01-01T10:00',
          () => '__proto__',
          () => 'constructor',
          () => 'sub',
          () => '1',
          () => '2',
          () => 'on',
          () => 'send',
        ])();
  const mutateFields = (fields: Field[]): Field[] => {
    const out = fields.map(([k, v]) => [k, v] as Field);
    const rounds = 1 + Math.floor(random() * 3);
    for (let i = 0; i < rounds; i++) {
      const at = Math.floor(random() * Math.max(out.length, 1));
      switch (pick(['value', 'value', 'value', 'drop', 'add', 'repeat', 'rename', 'name'] as const)) {
        case 'value':
          if (out[at]) out[at][1] = hostile();
          break;
        case 'drop':
          out.splice(at, 1);
          break;
        case 'add':
          out.push([pick(FIELD_POOL), hostile()]);
          break;
        case 'repeat':
          if (out[at]) out.push([out[at][0], hostile()]);
          break;
        case 'rename':
          if (out[at]) out[at][0] = `${out[at][0]}${pick(['x', '_', '[]', '.a', ''])}`.toUpperCase();
          break;
        case 'name':
          out.push([pick(['a\u0000', '\u0007', '', '=', '&', '__proto__']), '1']);
          break;
      }
    }
    return out;
  };
  const encode = (fields: Field[]): Buffer =>
    Buffer.concat(
      fields.flatMap(([k, v], i) => [
        Buffer.from(`${i ? '&' : ''}${encodeURIComponent(k)}=`),
        typeof v === 'string' ? Buffer.from(encodeURIComponent(v)) : Buffer.from(v.raw),
      ]),
    );
  const damage = (bytes: Buffer): Buffer => {
    if (bytes.length === 0) return bytes;
    const copy = Buffer.from(bytes);
    if (random() < 0.5) return copy.subarray(0, Math.floor(random() * copy.length));
    for (let i = 0; i < 1 + Math.floor(random() * 4); i++)
      copy[Math.floor(random() * copy.length)] = Math.floor(random() * 256);
    return copy;
  };
  return { pick, mutateFields, encode, damage, random, hostile };
}

/** The fields of every form a page shows, by the route it posts to. */
function formsOf(html: string, into: Map<string, Field[]>): void {
  for (const m of html.matchAll(/<form[^>]*action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)) {
    const fields: Field[] = [];
    for (const f of m[2].matchAll(/<(?:input|select|textarea)[^>]*name="([^"]+)"(?:[^>]*value="([^"]*)")?/g))
      fields.push([f[1], (f[2] ?? '').replaceAll('&#39;', "'").replaceAll('&#34;', '"').replaceAll('&amp;', '&')]);
    if (!into.has(m[1])) into.set(m[1], fields);
  }
}

for (const target of await storeTargets()) {
  describe(`console fuzz over every route (${target.name}, seed ${SEED}, ${ITERATIONS} requests)`, () => {
    let t: TestService;
    let web: ConsoleClient;
    let ids: string[] = [];
    /** The service's clock runs ahead by this much after a sign-in the fuzz's own failures held back. */
    let skew = 0;
    let address = 0;
    /** The session's CSRF token (the sign-in form's token is another). */
    let sessionCsrf = '';
    const forms = new Map<string, Field[]>();
    const routes: ConsoleRoute[] = consoleRoutes();

    // The fuzz's wrong current passwords count as failed sign-ins of the account: each session signs in from an
    // address of its own, and once the account's ceiling holds a sign-in back, the clock moves past its window.
    const signIn = async () => {
      web = new ConsoleClient(t.httpsUrl);
      web.headers = { 'x-forwarded-for': `192.0.2.${++address}` };
      let res = await web.login('fuzzer', PASSWORD);
      if (res.status === 429) {
        skew += 16 * 60_000;
        res = await web.login('fuzzer', PASSWORD);
      }
      assert.equal(res.status, 303, res.text.slice(0, 300));
      await web.get('/console');
      sessionCsrf = web.csrf;
    };

    before(async () => {
      t = await startSendingService(target, {
        env: { YONA_TRUST_PROXY: '127.0.0.1/32,::1/128' },
        clock: () => Date.now() + skew,
      });
      const s = await newSender(t, 'fuzzer', 100_000, ['--reseller']);
      await t.admin('create-account', 'sub', '--password', 'sub-pw-123', '--parent', 'fuzzer');
      const sent = await s.sms({ destinations: { phone: ['0521110001'] }, message: 'later', timing: '01/01/40 10:00' });
      const list = await s.call('newCL', {
        cl: [{ name: 'Fuzz list', destinations: { destination: [{ phone: '0521110002', df1: 'x' }] } }],
      });
      ids = [String(list.id), String(sent.campaign_id)];
      await signIn();
      // The forms the pages show (their hidden fields too), for every page the router serves.
      for (const { method, url } of routes) {
        if (method !== 'GET' || url.includes('assets') || url.includes(':lang')) continue;
        for (const id of ids) formsOf((await web.get(routePath(url, { id, username: 'sub' }))).text, forms);
      }
    });
    after(() => t?.close());

    it('answers every mutated form body and query string without a 500 or a 998, each within 1 s', async () => {
      const { pick, mutateFields, encode, damage, random, hostile } = mutator(mulberry32(SEED));
      const stranger = new ConsoleClient(t.httpsUrl);
      const failures: string[] = [];
      const slow: string[] = [];
      const codes = new Map<number, number>();
      let slowest = 0;
      const unknownError = statusMessage(998);
      for (let i = 0; i < ITERATIONS; i++) {
        const route = pick(routes);
        const signedIn = random() < 0.85;
        const client = signedIn ? web : stranger;
        if (!signedIn) stranger.headers = { 'x-forwarded-for': `198.51.100.${Math.floor(random() * 250) + 1}` };
        const path = routePath(route.url, { id: pick(ids), username: pick(['sub', 'fuzzer', 'nobody']) });
        const queryFields = random() < 0.6 ? mutateFields([[pick(QUERY_POOL), hostile()]]) : [];
        const query = queryFields.length ? `?${encode(queryFields).toString('latin1')}` : '';
        let res: ConsoleReply;
        let took = 0;
        let sent = '';
        if (route.method === 'POST') {
          const signInForm = route.url === '/console/login' || route.url === '/console/login/code';
          if (signInForm) await client.get('/console/login');
          const csrf = signedIn && !signInForm ? sessionCsrf : client.csrf;
          const known = forms.get(path) ?? FIELD_POOL.slice(0, 4).map((k): Field => [k, '']);
          const base: Field[] = [
            ['_csrf', random() < 0.9 ? csrf : 'forged'],
            ...known.filter(([k]) => k !== '_csrf' && k !== 'current' && k !== 'password'),
          ];
          let body = encode(mutateFields(base));
          if (random() < 0.15) body = damage(body);
          sent = body.toString('latin1').slice(0, 300);
          const started = performance.now();
          res = await client.postRaw(`${path}${query}`, body);
          took = performance.now() - started;
        } else {
          const started = performance.now();
          res = await client.get(`${path}${query}`);
          took = performance.now() - started;
        }
        slowest = Math.max(slowest, took);
        codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
        const what = `#${i} (seed ${SEED}) ${route.method} ${path}${query.slice(0, 200)} ${sent}`;
        if (res.status >= 500 || res.text.includes(unknownError))
          failures.push(`${what} -> ${res.status} ${res.text.slice(0, 200)}`);
        if (took > LIMIT_MS) slow.push(`${what} -> ${res.status} in ${Math.round(took)} ms`);
        // Signed out by the fuzz (the sign-out form, a suspended session): sign in again.
        if (signedIn && res.status === 303 && /^\/console\/login/.test(res.location ?? '')) await signIn();
      }
      const figures = [...codes]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}:${n}`)
        .join(' ');
      console.log(
        `FAULTS console fuzz (${target.name}): ${ITERATIONS} requests, ${failures.length} failed; HTTP ${figures}; slowest ${Math.round(slowest)} ms`,
      );
      assert.deepEqual(failures, []);
      assert.deepEqual(slow, [], `slowest request ${Math.round(slowest)} ms`);
      await signIn();
      assert.equal((await web.get('/console')).status, 200);
    });
  });
}

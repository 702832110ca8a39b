// The pusher end to end on every store, against real HTTP receivers on 127.0.0.1: exact form POSTs, event
// ids and signatures, retries and disabling (other 2xx answers are failures too), recovery after an outage,
// ordering per message, isolation of a slow receiver, the whole-request and connect timeouts, and the
// connect-time refusal of a name that resolves to loopback.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import dns from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { blacklistFields, dlrFields, incomingFields } from '../../src/domain/push-fields.ts';
import { verifyPushSignature } from '../../sdk/src/push.ts';
import { findAccountByUsername } from '../../src/store/accounts.ts';
import { recordPushEvent, type PushEventInput } from '../../src/store/push.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import {
  startPushReceiver,
  startSilentServer,
  waitFor,
  type PushReceiver,
  type Responder,
} from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets, type StoreTarget } from '../helpers/stores.ts';
import { loadConfig } from '../../src/config.ts';
import { whenQuiet } from '../helpers/quiescence.ts';

const ENV = {
  YONA_PUSH_ALLOW_PRIVATE: '1',
  YONA_PUSH_RETRY_BASE_MS: '20',
  YONA_PUSH_MAX_FAILURES: '3',
  YONA_PUSH_POLL_MS: '20',
  // Fewer in flight than a test's events, so the bound shows.
  YONA_PUSH_CONCURRENCY: '8',
};
const ZONE = 'Asia/Jerusalem';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const dlr = (externalId: string, status: number, date = Date.UTC(2025, 0, 2, 8, 30, 15)) =>
  dlrFields({ externalId, status, date, phone: '972501234567', operator: 'Cellcom', shipmentId: 42, timeZone: ZONE });

interface Customer {
  username: string;
  token: string;
  accountId: number;
  receiver: PushReceiver;
  record(type: PushEventInput['type'], fields: Record<string, string>, orderKey?: string): Promise<number>;
  status(): Promise<any>;
}

// pg-pool's end() resolves before its sockets have closed; if the harness drops the database (WITH FORCE) in
// that moment, an ending client gets an error the pool re-emits with no listener (uncaught). The pusher uses
// several connections at once, which makes that likelier: wait until the database has no sessions left.
const settled = (target: StoreTarget): StoreTarget => ({
  ...target,
  async create() {
    const created = await target.create();
    const url = created.env.DATABASE_URL;
    return {
      env: created.env,
      async cleanup() {
        if (url)
          await waitFor(async () => (await sessionsOf(url)) === 0, 'the store pool to close', 3000).catch(() => {});
        await created.cleanup();
      },
    };
  },
});

async function sessionsOf(url: string): Promise<number> {
  const client = new pg.Client({
    connectionString: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  });
  await client.connect();
  try {
    const r = await client.query('select count(*)::int as n from pg_stat_activity where datname = $1', [
      new URL(url).pathname.slice(1),
    ]);
    return r.rows[0].n;
  } finally {
    await client.end();
  }
}

async function service(
  target: StoreTarget,
  env: Record<string, string>,
  resolve?: typeof dns.lookup,
): Promise<TestService> {
  return startTestService(settled(target), {
    env,
    components: [createPusher({ config: loadConfig(env), resolve })],
  });
}

async function customer(
  t: TestService,
  username: string,
  respond?: Responder,
  types: string[] = ['dlr'],
  url?: (r: PushReceiver) => string,
): Promise<Customer> {
  const { token } = await t.account(username);
  const receiver = await startPushReceiver(respond);
  for (const type of types) {
    const reply = await t.api(
      'push_url',
      { user: { username }, type, url: url ? url(receiver) : receiver.url },
      { token },
    );
    assert.equal(reply.status, 0, JSON.stringify(reply));
  }
  const accountId = (await findAccountByUsername(t.service.store.db, username))!.id;
  return {
    username,
    token,
    accountId,
    receiver,
    async record(type, fields, orderKey) {
      const id = await t.service.store.db
        .transaction()
        .execute((trx) => recordPushEvent(trx, { accountId, type, fields, orderKey, now: Date.now() }));
      assert.ok(id !== null);
      t.service.signals.notify('push');
      return id;
    },
    async status() {
      const reply = await t.api('push_url', { user: { username }, action: 'status' }, { token });
      return reply.registrations;
    },
  };
}

const eventStates = async (t: TestService, accountId: number) =>
  t.service.store.db
    .selectFrom('push_events')
    .select(['id', 'state'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
const allDelivered = (t: TestService, accountId: number, n: number) => async () => {
  const rows = await eventStates(t, accountId);
  return rows.length === n && rows.every((r) => r.state === 'delivered');
};

/** One line of `yona admin push log`, parsed. */
interface Attempt {
  event: string;
  http: string;
  latencyMs: number;
  error: string | null;
}

/** The registration's delivery attempts, oldest first, as the operator's `push log` shows them. */
async function attempts(t: TestService, username: string, type = 'dlr', last = 100): Promise<Attempt[]> {
  const lines = await t.admin('push', 'log', username, type, String(last));
  if (lines.join('') === 'no delivery attempts yet') return [];
  return lines
    .map((line) => {
      const m = /^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d event=(\d+) http=(\S+) (\d+)ms(?: error="(.*)")?$/.exec(line);
      assert.ok(m, `a push log line: ${line}`);
      return { event: m[1], http: m[2], latencyMs: Number(m[3]), error: m[4] ?? null };
    })
    .reverse();
}

/** yona_push_registrations_disabled as /metrics shows it (one node: one series). */
async function disabledCount(t: TestService): Promise<number> {
  const text = await (await fetch(`${t.httpUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('yona_push_registrations_disabled{'));
  assert.ok(line, 'yona_push_registrations_disabled is exported');
  return Number(line.slice(line.lastIndexOf(' ') + 1));
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`pusher (${target.name})`, () => {
    let t: TestService;
    const receivers: PushReceiver[] = [];
    const track = (c: Customer) => (receivers.push(c.receiver), c);

    before(async () => {
      t = await service(target, ENV);
    });
    after(async () => {
      await t.close();
      for (const r of receivers) await r.close();
    });

    it('POSTs one event per request: exact Content-Type, a Content-Length, both operator spellings, an event id', async () => {
      const c = track(await customer(t, 'pformat', undefined, ['dlr', 'incoming_sms', 'blacklist']));
      const date = Date.UTC(2025, 0, 2, 8, 30, 15);
      const dlrId = await c.record('dlr', dlr('ext-1', 102), 'msg-1');
      await waitFor(() => c.receiver.received.length === 1, 'the dlr push');
      const push = c.receiver.received[0];
      assert.equal(push.method, 'POST');
      assert.equal(push.path, '/hook');
      assert.equal(push.headers['content-type'], 'application/x-www-form-urlencoded');
      assert.equal(push.headers['content-length'], String(Buffer.byteLength(push.body)));
      assert.equal(push.headers['transfer-encoding'], undefined);
      assert.equal(push.headers['x-yona-event-id'], String(dlrId));
      assert.equal(push.headers['x-yona-signature'], undefined);
      assert.deepEqual(Object.entries(push.fields), [
        ['external_id', 'ext-1'],
        ['status', '102'],
        ['he_message', 'הגיע ליעד'],
        ['en_message', 'Delivered'],
        ['date', '02/01/25 10:30:15'],
        ['phone', '972501234567'],
        ['operaor', 'Cellcom'],
        ['operator', 'Cellcom'],
        ['shipment_id', '42'],
      ]);
      assert.match(push.body, /^external_id=ext-1&status=102&he_message=%D7%94%D7%92/);

      await c.record(
        'incoming_sms',
        incomingFields({
          phone: '972529876543',
          dest: '0501234567',
          message: 'STOP please & thanks',
          date,
          timeZone: ZONE,
        }),
      );
      await c.record('blacklist', blacklistFields({ dest: '972529876543', date, timeZone: ZONE }));
      await waitFor(() => c.receiver.received.length === 3, 'incoming and blacklist pushes');
      const byKeys = c.receiver.received
        .slice(1)
        .map((p) => p.fields)
        .sort((a, b) => Object.keys(a).length - Object.keys(b).length || (a.dest < b.dest ? -1 : 1));
      assert.deepEqual(
        byKeys.find((f) => 'phone' in f),
        { phone: '972529876543', dest: '0501234567', message: 'STOP please & thanks', date: '02/01/25 10:30:15' },
      );
      assert.deepEqual(
        byKeys.find((f) => !('phone' in f)),
        { dest: '972529876543', message: 'המספר הוסר מרשימת התפוצה', date: '02/01/25 10:30:15' },
      );
      await waitFor(allDelivered(t, c.accountId, 3), 'events marked delivered');
      const log = await t.admin('push', 'log', 'pformat', 'dlr');
      assert.match(log[0], new RegExp(`event=${dlrId} http=200 \\d+ms$`));
    });

    it('retries a receiver answering 500, disables it after 3 failures, pushes nothing more; enable delivers the kept events', async () => {
      const c = track(await customer(t, 'pfail', () => 500));
      const disabledBefore = await disabledCount(t);
      const first = await c.record('dlr', dlr('f-1', 102));
      await waitFor(async () => (await c.status())[0].state === 'disabled', 'the registration to be disabled');
      // The gauge is read from the store at most every 5 s.
      await waitFor(
        async () => (await disabledCount(t)) === disabledBefore + 1,
        'yona_push_registrations_disabled to count it',
      );
      const [reg] = await c.status();
      assert.equal(reg.consecutive_failures, 3);
      assert.match(reg.disabled_reason, /^3 consecutive failed deliveries; last: HTTP 500$/);
      assert.match(reg.disabled_at, /^\d\d\/\d\d\/\d\d \d\d:\d\d:\d\d$/);
      assert.equal(reg.last_http_status, 500);
      assert.deepEqual(
        c.receiver.received.map((p) => p.headers['x-yona-event-id']),
        [String(first), String(first), String(first)],
      );
      const gaps = c.receiver.received.slice(1).map((p, i) => p.at - c.receiver.received[i].at);
      assert.ok(
        gaps[0] >= 20 && gaps[1] >= 40,
        `backoff of 20 then 40 ms at least (base 20, doubling), got gaps ${gaps}`,
      );
      const later = [await c.record('dlr', dlr('f-2', 102)), await c.record('dlr', dlr('f-3', 102))];
      // Nothing for 500 ms (25 poll intervals, past the 20-40-80 ms backoff): a disabled registration stays silent.
      assert.equal(await whenQuiet(() => c.receiver.received.length, 'pushes', { quietMs: 500 }), 3);
      assert.equal((await c.status())[0].pending_events, 3);

      c.receiver.respond = () => 200;
      assert.match((await t.admin('push', 'enable', 'pfail', 'dlr')).join(''), /kept events are delivered/);
      await waitFor(allDelivered(t, c.accountId, 3), 'kept events delivered after enable');
      const delivered = new Set(c.receiver.received.slice(3).map((p) => p.headers['x-yona-event-id']));
      assert.deepEqual([...delivered].sort(), [first, ...later].map(String).sort());
      const [after] = await c.status();
      assert.deepEqual(
        [after.state, after.consecutive_failures, after.disabled_reason, after.pending_events],
        ['registered', 0, null, 0],
      );
    });

    for (const code of [204, 201]) {
      it(`counts HTTP ${code} as a failure (only 200 is success): retried with the same event id, logged as ${code}, disabled after 3`, async () => {
        const c = track(await customer(t, `p${code}`, () => code));
        const id = String(await c.record('dlr', dlr(`c-${code}`, 102)));
        // Stop waiting at the first outcome either way: disabled, or (wrongly) nothing left to push.
        await waitFor(async () => {
          const [r] = await c.status();
          return r.state === 'disabled' || r.pending_events === 0;
        }, 'disabled or delivered');
        const [reg] = await c.status();
        assert.deepEqual(
          [
            reg.state,
            reg.consecutive_failures,
            reg.last_http_status,
            reg.last_error,
            reg.disabled_reason,
            reg.pending_events,
          ],
          ['disabled', 3, code, `HTTP ${code}`, `3 consecutive failed deliveries; last: HTTP ${code}`, 1],
        );
        assert.deepEqual(
          c.receiver.received.map((p) => p.headers['x-yona-event-id']),
          [id, id, id],
        );
        assert.deepEqual(
          (await attempts(t, c.username)).map((a) => [a.event, a.http, a.error]),
          [
            [id, String(code), `HTTP ${code}`],
            [id, String(code), `HTTP ${code}`],
            [id, String(code), `HTTP ${code}`],
          ],
        );
        assert.deepEqual(
          (await eventStates(t, c.accountId)).map((r) => r.state),
          ['pending'],
          'the event is kept, not delivered',
        );
      });
    }

    it("delivers each message's events in order; an intermediate status after a final one is never pushed", async () => {
      let n = 0;
      const c = track(
        await customer(t, 'porder', async (push) => {
          // The first report of msg-2 fails once: msg-2's later reports must wait for its retry.
          const failIt =
            push.fields.external_id === 'msg-2' &&
            !c.receiver.received.some((p) => p !== push && p.fields.external_id === 'msg-2');
          await sleep((n++ * 7) % 5);
          return failIt ? 500 : 200;
        }),
      );
      const keys = ['msg-1', 'msg-2', 'msg-3', 'msg-4', 'msg-5'];
      const ids = await t.service.store.db.transaction().execute(async (trx) => {
        const out: (number | null)[] = [];
        const rec = (key: string, status: number) =>
          recordPushEvent(trx, {
            accountId: c.accountId,
            type: 'dlr',
            fields: dlr(key, status),
            orderKey: key,
            now: Date.now(),
          });
        for (const key of keys) out.push(await rec(key, -1));
        for (const key of keys) out.push(await rec(key, key === 'msg-4' ? 103 : 102));
        out.push(await rec('msg-2', -1)); // late intermediate: superseded
        return out;
      });
      t.service.signals.notify('push');
      await waitFor(
        async () => (await eventStates(t, c.accountId)).filter((r) => r.state === 'delivered').length === 10,
        '10 delivered',
      );
      const states = await eventStates(t, c.accountId);
      assert.equal(states.find((r) => r.id === ids[10])!.state, 'superseded');
      for (const key of keys) {
        const arrivals = c.receiver.received
          .filter((p) => p.fields.external_id === key)
          .map((p) => Number(p.headers['x-yona-event-id']));
        assert.deepEqual(
          [...arrivals].sort((a, b) => a - b),
          arrivals,
          `${key} arrived in order: ${arrivals}`,
        );
        const statuses = c.receiver.received.filter((p) => p.fields.external_id === key).map((p) => p.fields.status);
        assert.equal(statuses.at(-1), key === 'msg-4' ? '103' : '102');
        assert.ok(
          !statuses.slice(statuses.findIndex((s) => s !== '-1')).includes('-1'),
          `${key}: no intermediate after a final`,
        );
      }
      assert.equal(c.receiver.received.filter((p) => p.fields.external_id === 'msg-2').length, 3); // failed once, retried, then the final
    });

    it('a number blocked through addNumBL is pushed to the blacklist URL', async () => {
      const c = track(await customer(t, 'pblock', undefined, ['blacklist']));
      const reply = await t.api(
        'addNumBL',
        { user: { username: 'pblock' }, phones: { phone: ['0541234567'] } },
        { token: c.token },
      );
      assert.equal(reply.status, 946);
      await waitFor(() => c.receiver.received.length === 1, 'the blacklist push');
      const { fields, headers } = c.receiver.received[0];
      assert.deepEqual(Object.keys(fields), ['dest', 'message', 'date']);
      assert.equal(fields.dest, '972541234567');
      assert.equal(fields.message, 'המספר הוסר מרשימת התפוצה');
      assert.equal(headers['content-type'], 'application/x-www-form-urlencoded');
    });

    it('signs pushes when the account has a secret', async () => {
      const c = track(await customer(t, 'psign'));
      const [, secret] = await t.admin('push', 'secret', 'psign');
      await c.record('dlr', dlr('s-1', 102));
      await waitFor(() => c.receiver.received.length === 1, 'a signed push');
      const push = c.receiver.received[0];
      const ts = push.headers['x-yona-timestamp'] as string;
      assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 5);
      const expected = `v1=${createHmac('sha256', secret).update(`${ts}.${push.body}`).digest('hex')}`;
      assert.equal(push.headers['x-yona-signature'], expected);
      assert.equal(verifyPushSignature(push.headers, push.body, secret), true);
      assert.equal(verifyPushSignature(push.headers, `${push.body}x`, secret), false);
      assert.equal(verifyPushSignature(push.headers, push.body, 'whsec_other'), false);
    });

    it('a slow receiver does not hold up another registration', async () => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const slow = track(await customer(t, 'pslow', async () => (await released, 200)));
      const fast = track(await customer(t, 'pfast'));
      for (let i = 0; i < 30; i++) await slow.record('dlr', dlr(`slow-${i}`, 102));
      for (let i = 0; i < 10; i++) await fast.record('dlr', dlr(`fast-${i}`, 102));
      await waitFor(allDelivered(t, fast.accountId, 10), 'the fast receiver served while the slow one hangs');
      assert.ok(
        slow.receiver.received.length <= 8,
        `at most 8 requests in flight to one URL, saw ${slow.receiver.received.length}`,
      );
      release();
      await waitFor(allDelivered(t, slow.accountId, 30), 'the slow receiver catching up');
      assert.equal(new Set(slow.receiver.received.map((p) => p.headers['x-yona-event-id'])).size, 30);
    });

    it('slow receivers that fill the read-ahead bound never starve another registration', async () => {
      const bounded = await startTestService(settled(target), {
        env: ENV,
        components: [createPusher({ config: loadConfig(ENV), maxBuffered: 16 })],
      });
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const extra: PushReceiver[] = [];
      try {
        const slow = [];
        for (const name of ['bslow1', 'bslow2', 'bslow3']) {
          const c = await customer(bounded, name, async () => (await released, 200));
          extra.push(c.receiver);
          slow.push(c);
          for (let i = 0; i < 30; i++) await c.record('dlr', dlr(`${name}-${i}`, 102));
        }
        const fast = await customer(bounded, 'bfast');
        extra.push(fast.receiver);
        for (let i = 0; i < 10; i++) await fast.record('dlr', dlr(`bfast-${i}`, 102));
        await waitFor(
          allDelivered(bounded, fast.accountId, 10),
          'the fast receiver served while three slow ones hold their claims',
          3000,
        );
        release();
        for (const c of slow) await waitFor(allDelivered(bounded, c.accountId, 30), `${c.username} catching up`);
      } finally {
        release();
        await bounded.close();
        for (const r of extra) await r.close();
      }
    });

    it('a receiver down for a while gets every event once it is back: events answered 200 before once, others at most once per logged failure plus one', async () => {
      const env = { ...ENV, YONA_PUSH_MAX_FAILURES: '50', YONA_PUSH_RETRY_MAX_MS: '80' };
      const t2 = await service(target, env);
      try {
        const c = track(await customer(t2, 'pdown'));
        const ids = [];
        for (let i = 0; i < 5; i++) ids.push(await c.record('dlr', dlr(`d-${i}`, 102)));
        await waitFor(() => c.receiver.received.length === 5, 'first deliveries');
        await c.receiver.down();
        for (let i = 5; i < 15; i++) ids.push(await c.record('dlr', dlr(`d-${i}`, 102), `key-${i % 3}`));
        await waitFor(async () => (await c.status())[0].consecutive_failures >= 3, 'three failed rounds');
        for (let i = 15; i < 20; i++) ids.push(await c.record('dlr', dlr(`d-${i}`, 102)));
        await c.receiver.up();
        await waitFor(allDelivered(t2, c.accountId, 20), 'every event delivered after recovery');
        const bodies = new Map<string, string>();
        const arrivals = new Map<string, number>();
        for (const p of c.receiver.received) {
          const id = p.headers['x-yona-event-id'] as string;
          if (bodies.has(id)) assert.equal(bodies.get(id), p.body, 'a repeat carries the same body');
          bodies.set(id, p.body);
          arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
        }
        assert.deepEqual([...bodies.keys()].sort(), ids.map(String).sort());
        for (const id of ids.slice(0, 5))
          assert.equal(arrivals.get(String(id)), 1, `event ${id}, answered 200 before the outage, arrives once`);
        // A repeat needs a failure first: an event answered 200 is never pushed again.
        const log = await attempts(t2, c.username, 'dlr', 10_000);
        assert.ok(log.length < 10_000, 'the whole push log was read');
        for (const id of ids.map(String)) {
          const failed = log.filter((a) => a.event === id && a.http !== '200').length;
          assert.ok(
            arrivals.get(id)! <= failed + 1,
            `event ${id}: ${arrivals.get(id)} arrivals, ${failed} failed attempts logged`,
          );
        }
        assert.equal((await c.status())[0].state, 'registered');
        assert.equal((await c.status())[0].consecutive_failures, 0);
      } finally {
        await t2.close();
      }
    });

    describe('the whole-request timeout (YONA_PUSH_TIMEOUT_MS 300)', () => {
      const TIMEOUT_MS = 300;
      let tt: TestService;
      before(async () => {
        tt = await service(target, { ...ENV, YONA_PUSH_TIMEOUT_MS: String(TIMEOUT_MS) });
      });
      after(async () => {
        await tt.close();
      });

      it('a receiver that takes the request and never answers fails with a timeout, is retried, then disabled', async () => {
        let release!: () => void;
        const released = new Promise<number>((r) => (release = () => r(200)));
        const c = await customer(tt, 'phang', () => released);
        try {
          const id = String(await c.record('dlr', dlr('h-1', 102)));
          await waitFor(async () => (await c.status())[0].state === 'disabled', 'the registration to be disabled');
          // Each attempt reached the receiver whole (the handler runs on the request's end): only the answer is missing.
          assert.deepEqual(
            c.receiver.received.map((p) => [p.headers['x-yona-event-id'], p.fields.external_id]),
            [
              [id, 'h-1'],
              [id, 'h-1'],
              [id, 'h-1'],
            ],
          );
          const [reg] = await c.status();
          assert.equal(reg.consecutive_failures, 3);
          assert.equal(reg.last_http_status, null);
          assert.match(reg.last_error, /timeout/i);
          assert.match(reg.disabled_reason, /^3 consecutive failed deliveries; last: .*timeout/i);
          const log = await attempts(tt, c.username);
          assert.deepEqual(
            log.map((a) => [a.event, a.http]),
            [
              [id, '-'],
              [id, '-'],
              [id, '-'],
            ],
          );
          for (const a of log) {
            assert.match(a.error ?? '', /timeout/i);
            // Cut at the configured 300 ms, not at the 10 s default.
            assert.ok(
              a.latencyMs >= TIMEOUT_MS - 5 && a.latencyMs < 5000,
              `attempt cut after about ${TIMEOUT_MS} ms, took ${a.latencyMs} ms`,
            );
          }
          assert.deepEqual(
            (await eventStates(tt, c.accountId)).map((r) => r.state),
            ['pending'],
          );
        } finally {
          release();
          await c.receiver.close();
        }
      });

      it('a 200 whose body never completes within the timeout is a failure, not a delivery', async () => {
        const stalled = createServer((req, res) => {
          req.resume();
          req.on('end', () => {
            res.writeHead(200, { 'content-length': '100' });
            res.write('OK'); // 2 of the 100 bytes announced; the rest never comes
          });
        });
        await new Promise<void>((r) => stalled.listen(0, '127.0.0.1', () => r()));
        const port = (stalled.address() as AddressInfo).port;
        const c = await customer(tt, 'pstall', undefined, ['dlr'], () => `http://127.0.0.1:${port}/hook`);
        try {
          await c.record('dlr', dlr('st-1', 102));
          await waitFor(async () => (await c.status())[0].state === 'disabled', 'the registration to be disabled');
          const [reg] = await c.status();
          assert.match(reg.last_error, /timeout: HTTP 200, but the answer did not complete/);
          assert.deepEqual(
            (await eventStates(tt, c.accountId)).map((r) => r.state),
            ['pending'],
          );
        } finally {
          stalled.closeAllConnections();
          stalled.close();
          await c.receiver.close();
        }
      });

      it('a receiver too slow the first time and prompt the next gets the event again with the same event id', async () => {
        let release!: () => void;
        const released = new Promise<number>((r) => (release = () => r(200)));
        // The first request is answered only after the event was delivered by a retry (its late 200 finds the
        // connection already cut); every later one is answered at once.
        const c = await customer(tt, 'pslowfast', (_push, n) => (n === 0 ? released : 200));
        try {
          const id = String(await c.record('dlr', dlr('sf-1', 102)));
          await waitFor(allDelivered(tt, c.accountId, 1), 'the event delivered by a retry');
          release();
          const pushes = c.receiver.received;
          assert.ok(pushes.length >= 2, `a first attempt and a retry, saw ${pushes.length}`);
          assert.deepEqual(new Set(pushes.map((p) => p.headers['x-yona-event-id'])), new Set([id]));
          assert.deepEqual(
            new Set(pushes.map((p) => p.body)),
            new Set([pushes[0].body]),
            'a repeat carries the same body',
          );
          const log = await attempts(tt, c.username);
          assert.equal(log[0].http, '-');
          assert.match(log[0].error ?? '', /timeout/i);
          assert.ok(
            log[0].latencyMs < 5000,
            `the first attempt cut by the 300 ms timeout, took ${log[0].latencyMs} ms`,
          );
          assert.deepEqual([log.at(-1)!.event, log.at(-1)!.http, log.at(-1)!.error], [id, '200', null]);
          const [reg] = await c.status();
          assert.deepEqual(
            [reg.state, reg.consecutive_failures, reg.last_http_status, reg.pending_events],
            ['registered', 0, 200, 0],
          );
        } finally {
          release();
          await c.receiver.close();
        }
      });
    });

    it('an https URL whose TLS handshake never completes fails on YONA_PUSH_CONNECT_TIMEOUT_MS, well before the request timeout', async () => {
      // A loopback listener that accepts the TCP connection and never answers the ClientHello: the connect phase
      // (TCP + TLS) stalls, which only the connect timeout (200 ms here) cuts; the request timeout stays 10 s.
      // (A plain http URL cannot be made to hang in connect on loopback reliably: the kernel completes the TCP
      // handshake itself, and a full accept backlog would need a listener that never accepts.)
      const CONNECT_MS = 200;
      const silent = await startSilentServer();
      const tc = await service(target, {
        ...ENV,
        YONA_PUSH_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
        YONA_PUSH_TIMEOUT_MS: '10000',
        YONA_PUSH_MAX_FAILURES: '2',
      });
      try {
        const c = await customer(tc, 'pconnect', undefined, ['dlr'], () => `https://127.0.0.1:${silent.port}/hook`);
        await c.receiver.close(); // its own receiver is not the URL
        const id = String(await c.record('dlr', dlr('ct-1', 102)));
        await waitFor(
          async () => (await c.status())[0].state === 'disabled',
          'disabled after two connect timeouts',
          8000,
        );
        const [reg] = await c.status();
        assert.equal(reg.last_http_status, null);
        assert.match(reg.last_error, /connect timeout/i);
        assert.match(reg.disabled_reason, /^2 consecutive failed deliveries; last: .*connect timeout/i);
        const log = await attempts(tc, c.username);
        assert.deepEqual(
          log.map((a) => [a.event, a.http]),
          [
            [id, '-'],
            [id, '-'],
          ],
        );
        for (const a of log) {
          assert.match(a.error ?? '', new RegExp(`connect timeout.*timeout: ${CONNECT_MS}ms`, 'i'));
          // undici runs connect timeouts on its coarse timer (about 0.5 to 1 s resolution): well under the 10 s request timeout.
          assert.ok(
            a.latencyMs >= CONNECT_MS - 5 && a.latencyMs < 5000,
            `cut by the connect timeout, took ${a.latencyMs} ms`,
          );
        }
        // Every attempt got as far as the TLS handshake: a new TCP connection each, with a ClientHello sent.
        assert.ok(silent.connections >= 2, `a connection per attempt, saw ${silent.connections}`);
        assert.ok(silent.bytesReceived > 0, 'a ClientHello reached the listener');
      } finally {
        await tc.close();
        await silent.close();
      }
    });

    it('refuses at connect time a name that resolves to 127.0.0.1 (DNS cannot point a push back inside)', async () => {
      const env = { ...ENV, YONA_PUSH_ALLOW_PRIVATE: '0' };
      const resolve = ((
        hostname: string,
        options: dns.LookupAllOptions,
        cb: (e: Error | null, a: dns.LookupAddress[]) => void,
      ) =>
        hostname === 'hooks.rebind.example'
          ? cb(null, [{ address: '127.0.0.1', family: 4 }])
          : dns.lookup(hostname, options, cb)) as unknown as typeof dns.lookup;
      const t3 = await service(target, env, resolve);
      try {
        const c = track(
          await customer(t3, 'prebind', undefined, ['dlr'], (r) => `http://hooks.rebind.example:${r.port}/hook`),
        );
        await c.record('dlr', dlr('r-1', 102));
        await waitFor(async () => (await c.status())[0].state === 'disabled', 'disabled after refused connects');
        const [reg] = await c.status();
        assert.match(
          reg.last_error,
          /hooks.rebind.example resolves to a non-public address \(loopback address 127.0.0.1\); push refused/,
        );
        assert.equal(reg.last_http_status, null);
        assert.equal(c.receiver.received.length, 0);
      } finally {
        await t3.close();
      }
    });
  });
}

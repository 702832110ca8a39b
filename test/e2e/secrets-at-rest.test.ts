// Secrets at rest, end to end on every store, through real processes (`yona admin`, `yona serve`, two
// `yona smsc-sim` that each take only their own password): a carrier password given to `yona admin add-carrier` and
// a push signing secret from `yona admin push secret` are in no row, no table dump and (SQLite) no byte of the
// database files, yet the carrier binds and the push arrives signed. A carrier and a push secret an earlier version
// stored in clear are sealed when `yona serve` starts (and `yona admin`) and keep working. A node with another
// secret key logs that it cannot open them, leaves the carriers down and holds the pushes, without crashing; back
// on the right key, the held push and the waiting message go out.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { verifyPushSignature } from '../../sdk/src/push.ts';
import { startPushReceiver, waitFor, type PushReceiver } from '../helpers/push-receiver.ts';
import { lastLine, runCli, startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';
import { startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';

// SMPP 3.4 passwords: at most 8 characters.
const PARTNER_PASSWORD = 'Ap7kQ2zx';
const LEGACY_PASSWORD = 'Lg4mW9rt';
const LEGACY_PUSH_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const CAROL_PUSH_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const SEALED = /^sealed:v1\.[\w-]+\.[\w-]+\.[\w-]+$/;
const PUSH_ENV = { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_POLL_MS: '20', YONA_PUSH_RETRY_BASE_MS: '20' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The store as anyone with a copy of it reads it: SQL on the raw database, no Yona code in between. */
interface RawStore {
  rows(table: string): Promise<Array<Record<string, unknown>>>;
  run(sql: string, params: unknown[]): Promise<void>;
  /** Every row of the tables as the dump tool writes them (pg_dump, sqlite3 .dump). */
  dump(tables: string[]): string;
  /** SQLite: the database files, byte for byte (free pages and the write-ahead log included); '' on PostgreSQL. */
  files(): string;
  close(): Promise<void>;
}

async function rawStore(env: Record<string, string>): Promise<RawStore> {
  if (env.DATABASE_URL) {
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    return {
      rows: async (table) => (await client.query(`select * from ${table} order by id`)).rows,
      async run(sql, params) {
        let n = 0;
        await client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          params,
        );
      },
      dump: (tables) =>
        execFileSync('pg_dump', ['--data-only', ...tables.flatMap((t) => ['--table', t]), env.DATABASE_URL], {
          encoding: 'utf8',
        }),
      files: () => '',
      close: () => client.end(),
    };
  }
  const file = join(env.YONA_DATA_DIR, 'yona.db');
  const open = () => new Sqlite(file, { fileMustExist: true });
  return {
    async rows(table) {
      const db = open();
      try {
        return db.prepare(`select * from ${table} order by id`).all() as Array<Record<string, unknown>>;
      } finally {
        db.close();
      }
    },
    async run(sql, params) {
      const db = open();
      try {
        db.prepare(sql).run(...params);
      } finally {
        db.close();
      }
    },
    dump: (tables) => tables.map((t) => execFileSync('sqlite3', [file, `.dump ${t}`], { encoding: 'utf8' })).join(''),
    files: () =>
      [file, `${file}-wal`]
        .filter((f) => existsSync(f))
        .map((f) => readFileSync(f).toString('latin1'))
        .join('\n'),
    close: async () => {},
  };
}

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`secrets at rest (${target.name})`, () => {
    let simA: SmscSimProcess;
    let simB: SmscSimProcess;
    let storeEnv: Record<string, string>;
    let cleanup: () => Promise<void>;
    let raw: RawStore;
    let serve: ServeProcess | undefined;
    let aliceSecret: string;
    const tokens = new Map<string, string>();
    const receivers = new Map<string, PushReceiver>();
    const base = 549_000_000 + index * 100_000;
    // No YONA_SECRET_KEY: the key is secret.key in the data dir (one is made on first use), as on most installs.
    const env = (extra: Record<string, string> = {}) => {
      const all: Record<string, string> = { ...(process.env as Record<string, string>), DATABASE_URL: '' };
      delete all.YONA_SECRET_KEY;
      return { ...all, ...storeEnv, ...extra };
    };
    const startServe = (extra: Record<string, string> = {}) =>
      startServeProcess(storeEnv, { ...PUSH_ENV, YONA_SECRET_KEY: '', ...extra });
    const admin = async (...args: string[]) => {
      const run = await runCli(env(), ['admin', ...args]);
      assert.equal(run.status, 0, `yona admin ${args[0]}: ${run.stderr}`);
      return run;
    };
    const api = async (root: string, username: string, doc: Record<string, unknown>) => {
      const res = await fetch(`http://127.0.0.1:${serve!.httpPort}/api`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.get(username)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ [root]: { user: { username }, ...doc } }),
      });
      return (await res.json()) as Record<string, any>;
    };
    const sms = async (username: string, phone: string) => {
      const reply = await api('sms', username, { source: 'Yona', destinations: { phone: [phone] }, message: 'hi' });
      assert.equal(reply.status, 0, JSON.stringify(reply));
    };
    const block = async (username: string, phone: string) =>
      assert.equal((await api('addNumBL', username, { phones: { phone: [phone] } })).status, 946);
    const delivered = (sim: SmscSimProcess, phone: string) =>
      waitFor(
        async () => (await sim.messages(`972${phone.slice(1)}`)).length === 1,
        `the message to ${phone} on its carrier`,
        20_000,
      );
    const signedPush = async (username: string, secret: string, phone: string) => {
      const receiver = receivers.get(username)!;
      await waitFor(
        () => receiver.received.some((p) => p.fields.dest === `972${phone.slice(1)}`),
        `the blacklist push of ${phone}`,
        20_000,
      );
      const push = receiver.received.find((p) => p.fields.dest === `972${phone.slice(1)}`)!;
      assert.equal(
        verifyPushSignature(push.headers, push.body, secret),
        true,
        `${username}'s push signed with its secret`,
      );
    };
    const logEvents = (event: string) =>
      serve!
        .logs()
        .split('\n')
        .filter((l) => l.includes(`"event":"${event}"`))
        .map((l) => JSON.parse(l) as Record<string, unknown>);

    before(async () => {
      simA = await startSmscSimProcess(['--password', PARTNER_PASSWORD, '--receipt-delay', '20']);
      simB = await startSmscSimProcess(['--password', LEGACY_PASSWORD, '--receipt-delay', '20']);
      const created = await target.create();
      storeEnv = created.env;
      cleanup = created.cleanup;
      await admin('create-account', 'alice', '--password', 'alice-pw-1', '--credits', '100', '--new-store');
      for (const name of ['bob', 'carol'])
        await admin('create-account', name, '--password', `${name}-pw-1`, '--credits', '100');
      for (const name of ['alice', 'bob', 'carol']) {
        await admin('verify-sender', name, 'Yona');
        tokens.set(name, lastLine(await admin('create-token', name)));
      }
      const login = ['--host', '127.0.0.1', '--system-id', 'yona', '--password', PARTNER_PASSWORD];
      await admin('add-carrier', 'partner', '--port', String(simA.smppPort), ...login);
      await admin('add-route', 'default', 'partner', '--account', 'alice');
      aliceSecret = lastLine(await admin('push', 'secret', 'alice'));
      assert.match(aliceSecret, /^whsec_/);
      raw = await rawStore(storeEnv);
      // What a version before sealing left: a carrier whose settings hold its password in clear, its route, and
      // bob's signing secret in clear.
      const legacy = {
        host: '127.0.0.1',
        port: simB.smppPort,
        systemId: 'yona',
        password: LEGACY_PASSWORD,
        bindMode: 'transceiver',
        binds: 1,
        windowSize: 10,
        maxSubmitsPerSecond: 0,
        tls: false,
        longMessages: 'udh',
        receiptIds: 'as-is',
      };
      await raw.run('insert into carriers (name, protocol, settings, created_at) values (?, ?, ?, ?)', [
        'legacy',
        'smpp',
        JSON.stringify(legacy),
        Date.now(),
      ]);
      await raw.run(
        'insert into carrier_routes (prefix, account, source, channel, carrier, created_at) values (?, ?, ?, ?, ?, ?)',
        ['', 'bob', '', '', 'legacy', Date.now()],
      );
      const bob = (await raw.rows('accounts')).find((a) => a.username === 'bob')!;
      await raw.run('insert into push_secrets (account_id, secret, created_at) values (?, ?, ?)', [
        bob.id,
        LEGACY_PUSH_SECRET,
        Date.now(),
      ]);
      serve = await startServe();
      for (const name of ['alice', 'bob']) {
        const receiver = await startPushReceiver();
        receivers.set(name, receiver);
        const reply = await api('push_url', name, { type: 'blacklist', url: receiver.url });
        assert.equal(reply.status, 0, JSON.stringify(reply));
      }
    });
    after(async () => {
      await serve?.stop();
      await raw?.close();
      for (const r of receivers.values()) await r.close();
      await simA?.stop();
      await simB?.stop();
      await cleanup?.();
    });

    it('keeps the password add-carrier took and the secret push secret printed out of every row and dump', async () => {
      const [partner] = (await raw.rows('carriers')).filter((c) => c.name === 'partner');
      const settings = JSON.parse(partner.settings as string);
      assert.match(settings.password, SEALED);
      assert.equal(settings.systemId, 'yona', 'what is not secret stays readable');
      const secrets = JSON.stringify(await raw.rows('push_secrets'));
      const carriers = JSON.stringify(await raw.rows('carriers'));
      const dump = raw.dump(['carriers', 'push_secrets']);
      assert.match(dump, /partner/, 'the dump holds the rows');
      for (const clear of [PARTNER_PASSWORD, aliceSecret]) {
        assert.ok(!carriers.includes(clear) && !secrets.includes(clear), 'not in a row');
        assert.ok(!dump.includes(clear), 'not in a dump');
        assert.ok(!raw.files().includes(clear), 'not in any byte of the database files');
      }
      const listed = await admin('carriers');
      assert.match(listed.stdout, /carrier partner: 127\.0\.0\.1:\d+, system_id yona/);
      assert.ok(!listed.stdout.includes(PARTNER_PASSWORD) && !listed.stdout.includes('sealed:'), listed.stdout);
    });

    it('seals at start what an earlier version stored in clear', async () => {
      const rows = await raw.rows('carriers');
      const legacy = rows.find((c) => c.name === 'legacy')!;
      assert.match(JSON.parse(legacy.settings as string).password, SEALED);
      const secrets = await raw.rows('push_secrets');
      for (const row of secrets) assert.match(row.secret as string, SEALED);
      for (const text of [JSON.stringify(rows), JSON.stringify(secrets), raw.dump(['carriers', 'push_secrets'])]) {
        assert.ok(!text.includes(LEGACY_PASSWORD), 'the clear password is gone from the table');
        assert.ok(!text.includes(LEGACY_PUSH_SECRET), 'the clear push secret is gone from the table');
      }
      const [line] = logEvents('secrets.sealed');
      assert.deepEqual([line?.carriers, line?.push_secrets], [1, 1], serve!.logs());
      // `yona admin` seals too: a clear secret written while no server ran is sealed by the next command.
      const carol = (await raw.rows('accounts')).find((a) => a.username === 'carol')!;
      await raw.run('insert into push_secrets (account_id, secret, created_at) values (?, ?, ?)', [
        carol.id,
        CAROL_PUSH_SECRET,
        Date.now(),
      ]);
      const run = await admin('push', 'list', 'carol');
      assert.match(
        run.stderr,
        /sealed with the secret key what an earlier version stored in clear: 0 carrier .*1 push/,
      );
      const carolRow = (await raw.rows('push_secrets')).find((r) => r.account_id === carol.id)!;
      assert.match(carolRow.secret as string, SEALED);
      assert.ok(!raw.dump(['push_secrets']).includes(CAROL_PUSH_SECRET));
    });

    it('binds each carrier with its own password and signs each push with its own secret', async () => {
      const [toAlice, toBob] = [`0${base + 1}`, `0${base + 2}`];
      await sms('alice', toAlice);
      await sms('bob', toBob);
      await delivered(simA, toAlice);
      await delivered(simB, toBob);
      await block('alice', `0${base + 11}`);
      await block('bob', `0${base + 12}`);
      await signedPush('alice', aliceSecret, `0${base + 11}`);
      await signedPush('bob', LEGACY_PUSH_SECRET, `0${base + 12}`);
    });

    it('a node with another secret key logs it, leaves the carriers down and holds the pushes; the right key sends them', async () => {
      await serve!.stop();
      const otherKey = randomBytes(32).toString('base64');
      serve = await startServe({ YONA_SECRET_KEY: otherKey });
      const unopened = () => logEvents('carrier.secret_unopened').map((l) => l.carrier);
      await waitFor(() => unopened().length >= 2, 'a carrier.secret_unopened line per carrier', 10_000);
      assert.deepEqual(unopened().sort(), ['legacy', 'partner']);
      const health = async () =>
        (await (await fetch(`http://127.0.0.1:${serve!.httpPort}/healthz?role=dispatcher`)).json()) as {
          carriers: Record<string, { down: boolean; bindsUp: number; lastError?: { text: string } }>;
        };
      const partner = (await health()).carriers.partner;
      assert.equal(partner.down, true);
      assert.equal(partner.bindsUp, 0);
      assert.match(partner.lastError?.text ?? '', /sealed with another secret key/);
      const listed = await runCli(env({ YONA_SECRET_KEY: otherKey }), ['admin', 'carriers']);
      assert.equal(listed.status, 0, listed.stderr);
      assert.match(listed.stdout, /carrier partner: .*its password is sealed with another secret key/);

      const waiting = `0${base + 3}`;
      const held = `0${base + 13}`;
      await sms('alice', waiting);
      await block('alice', held);
      await waitFor(() => logEvents('push.secret_unopened').length > 0, 'push.secret_unopened', 10_000);
      assert.equal(logEvents('push.secret_unopened')[0].account, 'alice');
      await sleep(1000);
      assert.equal((await simA.messages(`972${waiting.slice(1)}`)).length, 0, 'never bound with a wrong password');
      assert.ok(!receivers.get('alice')!.received.some((p) => p.fields.dest === `972${held.slice(1)}`), 'held');
      for (const leak of [PARTNER_PASSWORD, LEGACY_PASSWORD, aliceSecret, LEGACY_PUSH_SECRET])
        assert.ok(!serve!.logs().includes(leak), 'no secret in the log');

      await serve!.stop();
      serve = await startServe();
      await delivered(simA, waiting);
      await signedPush('alice', aliceSecret, held);
    });
  });
}

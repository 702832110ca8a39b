// Authentication end to end: tokens (3, 10, 11), the account acted for (11, 503), getApiToken (502, 504),
// the IP allowlist (511), the five-token limit (511, also under concurrent minting and from the CLI), expiry
// and deletion, on every store.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findAccountByUsername } from '../../src/store/accounts.ts';
import { listActiveTokens } from '../../src/store/tokens.ts';
import { storeTargets } from '../helpers/stores.ts';
import { runCli } from '../helpers/serve-process.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const DAY = 86_400_000;

for (const target of await storeTargets()) {
  describe(`authentication (${target.name})`, () => {
    let t: TestService;
    let clockOffset = 0;
    before(async () => {
      t = await startTestService(target, { clock: () => Date.now() + clockOffset });
    });
    after(() => t.close());

    const balanceOf = (username: string, token?: string) => t.api('balance', { user: { username } }, { token });

    it('answers 3 with no token, an unknown token, or a password instead of a token', async () => {
      await t.account('nobody1');
      assert.equal((await balanceOf('nobody1')).status, 3);
      assert.equal((await balanceOf('nobody1', 'yona_not-a-real-token')).status, 3);
      const withPassword = await t.api('balance', { user: { username: 'nobody1', password: 'secret-pw' } });
      assert.equal(withPassword.status, 3);
    });

    it('answers 2 naming user.username when it is missing', async () => {
      const a = await t.account('nouser1');
      const reply = await t.api('balance', {}, { token: a.token });
      assert.equal(reply.status, 2);
      assert.match(reply.message, /user\.username/);
    });

    it('answers 11 when the token belongs to another username', async () => {
      const a = await t.account('owner11');
      await t.account('other11');
      assert.equal((await balanceOf('other11', a.token)).status, 11);
      assert.equal((await balanceOf('ghost-user', a.token)).status, 11);
      assert.equal((await balanceOf('owner11', a.token)).status, 0);
    });

    it('answers 10 once the token has expired, and keeps other tokens working', async () => {
      await t.account('expiring');
      const shortLived = (await t.admin('create-token', 'expiring', '--expires-in', '1d')).at(-1)!;
      const longLived = (await t.admin('create-token', 'expiring', '--expires-in', '30d')).at(-1)!;
      assert.equal((await balanceOf('expiring', shortLived)).status, 0);
      clockOffset = 2 * DAY;
      try {
        const expired = await balanceOf('expiring', shortLived);
        assert.equal(expired.status, 10);
        assert.match(expired.message, /Expired API token/);
        assert.equal((await balanceOf('expiring', longLived)).status, 0);
      } finally {
        clockOffset = 0;
      }
    });

    it('mints tokens with getApiToken new; all five work at once, and a sixth is refused (511) invalidating none', async () => {
      const a = await t.account('minter');
      const minted: string[] = [a.token];
      const mint = (token: string) =>
        t.api('getApiToken', { user: { username: 'minter' }, username: 'minter', action: 'new' }, { token });
      for (let i = 0; i < 4; i++) {
        const reply = await mint(minted[0]);
        assert.equal(reply.status, 0);
        assert.match(reply.message, /^yona_[A-Za-z0-9_-]{43}$/);
        assert.match(reply.expiration_date, /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/);
        minted.push(reply.message);
      }
      const current = await t.api(
        'getApiToken',
        { user: { username: 'minter' }, username: 'minter', action: 'current' },
        { token: minted[0] },
      );
      const sixth = await mint(minted.at(-1)!);
      assert.equal(sixth.status, 511);
      assert.equal(sixth.message, 'At most 5 active API tokens: delete one first');
      for (const token of minted) assert.equal((await balanceOf('minter', token)).status, 0);
      const after = await t.api(
        'getApiToken',
        { user: { username: 'minter' }, username: 'minter', action: 'current' },
        { token: minted[0] },
      );
      assert.deepEqual(after, current, 'the refused mint stored nothing');

      await t.admin('delete-token', 'minter', current.name);
      assert.equal((await mint(minted[0])).status, 0, 'a slot freed by deleting a token can be minted again');
    });

    it('yona admin create-token (a real process) refuses a sixth token with one line on stderr, invalidating none', async () => {
      const a = await t.account('cli-full');
      const tokens = [a.token];
      for (let i = 0; i < 4; i++) tokens.push((await t.admin('create-token', 'cli-full')).at(-1)!);
      const run = await runCli(
        { ...process.env, YONA_DATA_DIR: t.config.dataDir, DATABASE_URL: t.config.databaseUrl ?? '' },
        ['admin', 'create-token', 'cli-full'],
      );
      assert.notEqual(run.status, 0);
      assert.equal(run.stdout, '');
      assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr);
      assert.match(
        run.stderr,
        /^yona: cli-full: At most 5 active API tokens: delete one first \(yona admin delete-token cli-full "TOKEN NAME"\)\n$/,
      );
      for (const token of tokens) assert.equal((await balanceOf('cli-full', token)).status, 0);
    });

    it('10 concurrent getApiToken new for one account: five minted with unique names, five refused (511), exactly 5 active after', async () => {
      const reseller = await t.account('racer-parent', ['--reseller']);
      await t.admin('create-account', 'racer', '--password', 'secret-pw', '--parent', 'racer-parent');
      const replies = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.api(
            'getApiToken',
            { user: { username: 'racer-parent' }, username: 'racer', action: 'new' },
            { token: reseller.token },
          ),
        ),
      );
      const ok = replies.filter((r) => r.status === 0);
      assert.equal(ok.length, 5, JSON.stringify(replies));
      assert.deepEqual(
        replies.filter((r) => r.status !== 0).map((r) => r.status),
        [511, 511, 511, 511, 511],
      );
      assert.equal(new Set(ok.map((r) => r.name)).size, 5, JSON.stringify(ok.map((r) => r.name)));
      const racer = await findAccountByUsername(t.service.store.db, 'racer');
      assert.equal((await listActiveTokens(t.service.store.db, racer!.id, Date.now())).length, 5);
      for (const r of ok) assert.equal((await balanceOf('racer', r.message)).status, 0);
    });

    it('expiration_date is a year out by default and fixed: a new token does not extend an old one', async () => {
      const a = await t.account('expiry-fixed');
      const first = await t.api(
        'getApiToken',
        { user: { username: 'expiry-fixed' }, username: 'expiry-fixed', action: 'current' },
        { token: a.token },
      );
      const nextYear = String(new Date().getFullYear() + 1);
      assert.ok(first.expiration_date.includes(`/${nextYear} `), first.expiration_date);
      const minted = await t.api(
        'getApiToken',
        { user: { username: 'expiry-fixed' }, username: 'expiry-fixed', action: 'new' },
        { token: a.token },
      );
      const current = await t.api(
        'getApiToken',
        { user: { username: 'expiry-fixed' }, username: 'expiry-fixed', action: 'current' },
        { token: a.token },
      );
      assert.equal(current.expiration_date, minted.expiration_date);
      assert.equal(current.message.slice(-4), minted.message.slice(-4));
      assert.ok(!current.message.includes(minted.message.slice(5, 20)), 'current must be masked');
    });

    it('answers 502 for an unknown action and 2 when action is missing', async () => {
      const a = await t.account('actions');
      const bad = await t.api(
        'getApiToken',
        { user: { username: 'actions' }, username: 'actions', action: 'rotate' },
        { token: a.token },
      );
      assert.equal(bad.status, 502);
      const missing = await t.api(
        'getApiToken',
        { user: { username: 'actions' }, username: 'actions' },
        { token: a.token },
      );
      assert.equal(missing.status, 2);
      assert.match(missing.message, /action/);
    });

    it('lets a reseller act for its sub-accounts, 503 for anyone else, 504 when a sub has no token', async () => {
      const reseller = await t.account('reseller1', ['--reseller']);
      await t.admin('create-account', 'sub1', '--password', 'secret-pw', '--credits', '7', '--parent', 'reseller1');
      await t.account('stranger1');
      const subBalance = await balanceOf('sub1', reseller.token);
      assert.equal(subBalance.status, 0);
      assert.equal(subBalance.balance, '7');
      assert.equal((await balanceOf('stranger1', reseller.token)).status, 503);
      const none = await t.api(
        'getApiToken',
        { user: { username: 'reseller1' }, username: 'sub1', action: 'current' },
        { token: reseller.token },
      );
      assert.equal(none.status, 504);
      const forSub = await t.api(
        'getApiToken',
        { user: { username: 'reseller1' }, username: 'sub1', action: 'new' },
        { token: reseller.token },
      );
      assert.equal(forSub.status, 0);
      assert.equal((await balanceOf('sub1', forSub.message)).balance, '7');
      const notMine = await t.api(
        'getApiToken',
        { user: { username: 'reseller1' }, username: 'stranger1', action: 'new' },
        { token: reseller.token },
      );
      assert.equal(notMine.status, 503);
      const sub = await t.api(
        'getApiToken',
        { user: { username: 'sub1' }, username: 'reseller1', action: 'new' },
        { token: forSub.message },
      );
      assert.equal(sub.status, 503);
    });

    it('dry-run of getApiToken new stores no token', async () => {
      const a = await t.account('dryminter');
      const before = await t.api(
        'getApiToken',
        { user: { username: 'dryminter' }, username: 'dryminter', action: 'current' },
        { token: a.token },
      );
      const dry = await t.api(
        'getApiToken',
        { user: { username: 'dryminter' }, username: 'dryminter', action: 'new' },
        { token: a.token, dryRun: true },
      );
      assert.equal(dry.status, 0);
      assert.equal((await balanceOf('dryminter', dry.message)).status, 3);
      const afterDry = await t.api(
        'getApiToken',
        { user: { username: 'dryminter' }, username: 'dryminter', action: 'current' },
        { token: a.token },
      );
      assert.deepEqual(afterDry, before);
    });

    it('a deleted token stops working at once', async () => {
      const a = await t.account('deleter');
      const current = await t.api(
        'getApiToken',
        { user: { username: 'deleter' }, username: 'deleter', action: 'current' },
        { token: a.token },
      );
      await t.admin('delete-token', 'deleter', current.name);
      assert.equal((await balanceOf('deleter', a.token)).status, 3);
    });

    it('a token deleted while its sends are in flight refuses every send made after the deletion', async () => {
      // Sends share commits (and the token look-up of their group): the deletion must still hold from its reply on.
      const a = await t.account('busydeleter');
      await t.admin('verify-sender', 'busydeleter', 'Yona');
      const sms = () =>
        t.api(
          'sms',
          { user: { username: 'busydeleter' }, source: 'Yona', destinations: { phone: '0501234567' }, message: 'hi' },
          { token: a.token },
        );
      const current = await t.api(
        'getApiToken',
        { user: { username: 'busydeleter' }, username: 'busydeleter', action: 'current' },
        { token: a.token },
      );
      let deleted = false;
      const madeAfter: Array<ReturnType<typeof sms>> = [];
      const stream = async () => {
        while (!deleted) await sms();
        madeAfter.push(sms());
      };
      const streams = Array.from({ length: 8 }, stream);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.admin('delete-token', 'busydeleter', current.name);
      deleted = true;
      const afterDeletion = [sms(), sms(), sms()];
      await Promise.all(streams);
      for (const reply of await Promise.all([...afterDeletion, ...madeAfter])) assert.equal(reply.status, 3);
    });

    it('stores tokens only as SHA-256', async () => {
      const a = await t.account('hashed');
      const rows = await t.service.store.db.selectFrom('api_tokens').selectAll().execute();
      const dump = JSON.stringify(rows);
      assert.ok(!dump.includes(a.token), 'token must not be stored in clear');
      assert.ok(rows.some((r) => /^[0-9a-f]{64}$/.test(r.token_hash)));
    });

    it('enforces the IP allowlist: 511 from an unlisted address or with the check on and no address', async () => {
      const a = await t.account('fenced', ['--allow-ip', '10.0.0.0/8']);
      const refused = await balanceOf('fenced', a.token);
      assert.equal(refused.status, 511);
      assert.match(refused.message, /127\.0\.0\.1/);
      await t.admin('allow-ip', 'fenced', '127.0.0.0/24');
      assert.equal((await balanceOf('fenced', a.token)).status, 0);

      const b = await t.account('fenced-empty');
      await t.admin('ip-check', 'fenced-empty', 'on');
      assert.equal((await balanceOf('fenced-empty', b.token)).status, 511);
      await t.admin('ip-check', 'fenced-empty', 'off');
      assert.equal((await balanceOf('fenced-empty', b.token)).status, 0);
    });

    it('matches IPv4-mapped IPv6 allowlist entries against IPv4 callers', async () => {
      const a = await t.account('mapped', ['--allow-ip', '::ffff:127.0.0.1']);
      assert.equal((await balanceOf('mapped', a.token)).status, 0);
    });

    it('ignores X-Forwarded-For from a proxy that is not trusted', async () => {
      const a = await t.account('proxied', ['--allow-ip', '203.0.113.5']);
      const reply = await t.post(JSON.stringify({ balance: { user: { username: 'proxied' } } }), {
        token: a.token,
        contentType: 'application/json',
        headers: { 'x-forwarded-for': '203.0.113.5' },
      });
      assert.equal(JSON.parse(reply.text).status, 511);
    });
  });
}

describe('trusted proxy', () => {
  let t: TestService;
  before(async () => {
    const [sqlite] = await storeTargets();
    t = await startTestService(sqlite, { env: { YONA_TRUST_PROXY: '127.0.0.1/32' } });
  });
  after(() => t.close());

  it('believes X-Forwarded-For from a trusted proxy address', async () => {
    const a = await t.account('behindproxy', ['--allow-ip', '203.0.113.5']);
    const body = JSON.stringify({ balance: { user: { username: 'behindproxy' } } });
    const allowed = await t.post(body, {
      token: a.token,
      contentType: 'application/json',
      headers: { 'x-forwarded-for': '203.0.113.5' },
    });
    assert.equal(JSON.parse(allowed.text).status, 0);
    const other = await t.post(body, {
      token: a.token,
      contentType: 'application/json',
      headers: { 'x-forwarded-for': '198.51.100.7' },
    });
    assert.equal(JSON.parse(other.text).status, 511);
  });
});

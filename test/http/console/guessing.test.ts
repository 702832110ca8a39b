// Password and code guessing spread over many addresses, on both stores, over HTTPS behind a trusted proxy (each
// client its own address): the lockout per username and address never trips (four guesses an address), but the
// per-account ceiling does. Past 20 failures in 15 minutes every further attempt on the account waits (1 s after
// the latest failure, doubling, at most 60 s: 429 saying how long), each failure past it logs `console.attack`,
// the right password is accepted once the wait is over, and the ceiling ends 15 minutes after the last failure.
// The same holds for two-factor codes; and the signed-in forms that ask for the current password count failures.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { totpCode } from '../../../src/domain/totp.ts';
import { createLogger } from '../../../src/logger.ts';
import { ConsoleClient } from '../../helpers/console-client.ts';
import { startTestService, type TestService } from '../../helpers/service.ts';
import { storeTargets } from '../../helpers/stores.ts';

type Line = Record<string, unknown> & { event?: string };

for (const target of await storeTargets()) {
  describe(`console guessing from many addresses (${target.name})`, () => {
    let t: TestService;
    let now = Date.now();
    const lines: Line[] = [];
    const events = (name: string, account: string) => lines.filter((l) => l.event === name && l.account === account);
    let block = 0;
    /** A client at its own address (a new /24 for every call of `addresses`). */
    const addresses = (n: number) => {
      block++;
      return Array.from({ length: n }, (_, i) => {
        const c = new ConsoleClient(t.httpsUrl);
        c.headers = { 'x-forwarded-for': `10.${block}.${i >> 8}.${i & 255}` };
        return c;
      });
    };
    const failuresOf = async (username: string) =>
      Number(
        (
          await t.service.store.db
            .selectFrom('console_login_failures')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('username', '=', username)
            .executeTakeFirst()
        )?.n,
      );
    const waitOf = (text: string) => Number(/Try again in (\d+) s\./.exec(text)?.[1]);

    before(async () => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          for (const l of String(chunk).split('\n')) if (l.startsWith('{')) lines.push(JSON.parse(l));
          done();
        },
      });
      t = await startTestService(target, {
        clock: () => now,
        env: { YONA_TRUST_PROXY: '127.0.0.1/32,::1/128' },
        logger: createLogger('info', sink),
      });
      for (const name of ['carol', 'tess', 'ivy'])
        await t.admin('create-account', name, '--password', `${name}-pw-123`);
    });
    after(() => t?.close());

    it('slows every attempt on an account after 20 failures from 30 addresses, then takes the right password', async () => {
      const crowd = addresses(30);
      for (const c of crowd) await c.get('/console/login');
      const started = Date.now();
      const statuses: number[] = [];
      const texts: string[] = [];
      for (let round = 0; round < 4; round++) {
        const replies = await Promise.all(
          crowd.map((c, i) => c.post('/console/login', { username: 'carol', password: `guess-${round}-${i}` })),
        );
        // Each answer is the sign-in page again, with the token the client's next guess sends.
        for (const r of replies) {
          statuses.push(r.status);
          texts.push(r.text);
        }
      }
      const elapsed = Date.now() - started;
      assert.equal(statuses.length, 120);
      assert.equal(
        statuses.filter((s) => s === 401).length,
        21,
        'twenty failures, and the one that passes the ceiling',
      );
      assert.equal(statuses.filter((s) => s === 429).length, 99);
      assert.ok(texts.some((x) => /Too many failed attempts on this account. Try again in 1 s\./.test(x)));
      assert.equal(await failuresOf('carol'), 21, 'a refused attempt is not looked at and not counted');
      assert.ok(elapsed < 60_000, `${elapsed} ms`);

      // console.attack names the account, how many failures from how many addresses, and the wait now imposed.
      const attack = events('console.attack', 'carol');
      assert.equal(attack.length, 1);
      assert.equal(attack[0].level, 40);
      assert.equal(attack[0].failures, 21);
      assert.ok(Number(attack[0].addresses) >= 5 && Number(attack[0].addresses) <= 30, String(attack[0].addresses));
      assert.equal(attack[0].retry_s, 1);
      assert.ok(events('console.signin_failed', 'carol').some((l) => l.reason === 'slowed'));

      // The right password: refused while the wait lasts (it is not even looked at), accepted after it.
      const [owner] = addresses(1);
      const early = await owner.login('carol', 'carol-pw-123');
      assert.equal(early.status, 429);
      assert.equal(waitOf(early.text), 1);
      now += 1000;
      assert.equal((await owner.login('carol', 'carol-pw-123')).status, 303, 'signed in after the wait');
      assert.equal((await owner.get('/console')).status, 200);
    });

    it('doubles the wait with every further failure up to 60 s, and ends 15 minutes after the last', async () => {
      const waits: number[] = [];
      for (let i = 0; i < 7; i++) {
        const [c] = addresses(1);
        assert.equal((await c.login('carol', `again-${i}`)).status, 401);
        const slowed = await c.login('carol', 'carol-pw-123');
        assert.equal(slowed.status, 429);
        waits.push(waitOf(slowed.text));
        now += waits[i] * 1000;
      }
      assert.deepEqual(waits, [2, 4, 8, 16, 32, 60, 60]);
      assert.equal(events('console.attack', 'carol').length, 8, 'one line a failure past the ceiling');
      now += 15 * 60_000;
      const [late] = addresses(1);
      assert.equal((await late.login('carol', 'wrong')).status, 401, 'counted as an ordinary failure again');
      assert.equal((await late.login('carol', 'carol-pw-123')).status, 303);
    });

    it('slows two-factor codes guessed from 40 addresses after 20 failures (160 guesses)', async () => {
      const owner = addresses(1)[0];
      await owner.login('tess', 'tess-pw-123');
      await owner.get('/console/security');
      const setup = await owner.post('/console/security/totp/start');
      const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(setup.text)![1].replace(/ /g, '');
      const pending = /name="pending" value="([^"]+)"/.exec(setup.text)![1];
      const confirmed = await owner.post('/console/security/totp/confirm', { pending, code: totpCode(secret, now) });
      assert.match(confirmed.text, /Two-factor sign-in is on/);
      now += 30_000; // the confirming code is used; the next step's is not

      const right = totpCode(secret, now);
      const wrong = (i: number) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0');
      const statuses: number[] = [];
      for (const c of addresses(40)) {
        const first = await c.login('tess', 'tess-pw-123');
        if (first.status !== 200) {
          statuses.push(first.status); // the account is slowed: not even the password is looked at
          continue;
        }
        for (let i = 0; i < 4; i++) {
          const res = await c.post('/console/login/code', { code: wrong(statuses.length) });
          statuses.push(res.status);
          if (res.status !== 401) break;
          await c.get('/console/login/code');
        }
      }
      assert.equal(statuses.filter((s) => s === 401).length, 21);
      assert.ok(
        statuses.slice(21).every((s) => s === 429),
        statuses.join(' '),
      );
      assert.equal(await failuresOf('tess'), 21);
      assert.equal(events('console.attack', 'tess').length, 1);

      now += 1000;
      const [back] = addresses(1);
      assert.equal((await back.login('tess', 'tess-pw-123')).status, 200);
      assert.equal(
        (await back.post('/console/login/code', { code: right })).status,
        303,
        'the right code after the wait',
      );
    });

    it('counts wrong current passwords in the signed-in forms: five from one address lock it there', async () => {
      const [here, there] = addresses(2);
      assert.equal((await here.login('ivy', 'ivy-pw-123')).status, 303);
      await here.get('/console/security');
      for (let i = 0; i < 3; i++) {
        const wrong = await here.post('/console/security/password', {
          current: `nope-${i}`,
          new: 'ivy-pw-456',
          repeat: 'ivy-pw-456',
        });
        assert.equal(wrong.status, 400);
        assert.match(wrong.text, /The current password is wrong/);
      }
      for (let i = 0; i < 2; i++) {
        const wrong = await here.post('/console/security/totp/off', { password: `nope-off-${i}` });
        assert.equal(wrong.status, i === 0 ? 400 : 429);
      }
      assert.equal(await failuresOf('ivy'), 5);
      assert.ok(
        events('console.signin_failed', 'ivy').some((l) => l.form === '/console/security/totp/off'),
        'logged with the form it came from',
      );
      assert.equal(events('console.lockout', 'ivy').length, 1);
      // Locked at this address: even the right current password is refused, and so is signing in from here.
      const held = await here.post('/console/security/password', {
        current: 'ivy-pw-123',
        new: 'ivy-pw-456',
        repeat: 'ivy-pw-456',
      });
      assert.equal(held.status, 429);
      assert.match(held.text, /Too many failed sign-ins for this user/);
      assert.equal((await new ConsoleClient(t.httpsUrl).login('ivy', 'ivy-pw-123')).status, 303, 'another address');
      assert.equal((await there.login('ivy', 'ivy-pw-123')).status, 303);
      const again = new ConsoleClient(t.httpsUrl);
      again.headers = here.headers;
      assert.equal((await again.login('ivy', 'ivy-pw-123')).status, 429, 'this address is locked');
    });
  });
}

// Who may bind to the SMPP server, on both stores: the password (hashed, set by `yona admin smpp-password`), an
// unknown system_id, the account's IP allowlist, a suspended account, a TLS-only account over the plain and the
// TLS listener, the lockout after repeated failures, the limit of binds; the live binds as the store lists them;
// and the submits-per-second limit (ESME_RTHROTTLED beyond it) and the window (ESME_RMSGQFUL).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listSmppBinds } from '../../src/store/smpp-binds.ts';
import { storeTargets } from '../helpers/stores.ts';
import { Esme } from './esme.ts';
import { startSmppHarness, type SmppHarness } from './harness.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`SMPP server: binds and limits (${target.name})`, () => {
    let h: SmppHarness;
    const open: Esme[] = [];
    const connect = async (tls = false) => {
      const e = await Esme.connect(tls ? h.tlsPort : h.port, { tls });
      open.push(e);
      return e;
    };
    const bindOnce = async (kind: 'transmitter' | 'receiver' | 'transceiver', user: string, pw: string, tls = false) =>
      (await connect(tls)).bind(kind, user, pw);

    before(async () => {
      h = await startSmppHarness(target);
    });
    after(async () => {
      for (const e of open) e.close();
      await h?.close();
    });

    it('the right password binds; a wrong one, an unknown system_id and an account without an SMPP password do not', async () => {
      await h.customer('bind1', 'right1');
      assert.equal(await bindOnce('transceiver', 'bind1', 'right1'), 0);
      assert.equal(await bindOnce('transceiver', 'bind1', 'wrong1'), 0x0e);
      assert.equal(await bindOnce('transceiver', 'nobody', 'right1'), 0x0f);
      await h.t.admin('create-account', 'nosmpp', '--password', 'secret-pw');
      assert.equal(await bindOnce('transceiver', 'nosmpp', 'secret-pw'), 0x0f);
      const row = await h.t.service.store.db
        .selectFrom('smpp_accounts')
        .select('password_hash')
        .executeTakeFirstOrThrow();
      assert.ok(!row.password_hash.includes('right1') && row.password_hash.startsWith('$argon2id$'));
    });

    it('a password of more than 8 characters is refused by yona admin', async () => {
      await assert.rejects(h.t.admin('smpp-password', 'bind1', 'toolong99'), /1 to 8 characters/);
    });

    it('refused from an address outside the allowlist, then bound once the address is listed', async () => {
      await h.customer('allow1', 'pw');
      await h.t.admin('allow-ip', 'allow1', '203.0.113.0/24');
      assert.equal(await bindOnce('transmitter', 'allow1', 'pw'), 0x0d);
      await h.t.admin('allow-ip', 'allow1', '127.0.0.1');
      assert.equal(await bindOnce('transmitter', 'allow1', 'pw'), 0);
    });

    it('a suspended account is refused until resumed', async () => {
      await h.customer('susp1', 'pw');
      await h.t.admin('suspend', 'susp1', '--reason', 'unpaid');
      assert.equal(await bindOnce('transmitter', 'susp1', 'pw'), 0x0d);
      await h.t.admin('resume', 'susp1');
      assert.equal(await bindOnce('transmitter', 'susp1', 'pw'), 0);
    });

    it('a TLS-only account binds over the TLS listener only', async () => {
      await h.customer('tls1', 'pw', { tlsOnly: true });
      assert.equal(await bindOnce('transceiver', 'tls1', 'pw'), 0x0d);
      const esme = await connect(true);
      assert.equal(await esme.bind('transceiver', 'tls1', 'pw'), 0);
      const resp = await esme.submit({ destination_addr: '0521230001', short_message: Buffer.from('over TLS') });
      assert.equal(resp.command_status, 0);
    });

    it('repeated wrong passwords lock the account out, the right password included', async () => {
      await h.customer('lock1', 'pw');
      for (let i = 0; i < 5; i++) assert.equal(await bindOnce('transmitter', 'lock1', 'bad'), 0x0e);
      assert.equal(await bindOnce('transmitter', 'lock1', 'pw'), 0x0d);
      await h.t.admin('smpp-password', 'lock1', 'pw2');
      assert.equal(await bindOnce('transmitter', 'lock1', 'pw2'), 0, 'a new password lifts the lockout');
    });

    it('the limit of binds (4 by default, settable) and the live binds as the store lists them', async () => {
      await h.customer('limit1', 'pw');
      for (let i = 0; i < 4; i++) assert.equal(await bindOnce('transceiver', 'limit1', 'pw'), 0);
      assert.equal(await bindOnce('transceiver', 'limit1', 'pw'), 0x0d);
      await h.t.admin('smpp-limits', 'limit1', '--binds', '5');
      assert.equal(await bindOnce('receiver', 'limit1', 'pw'), 0);
      const accountId = await h.t.accountId('limit1');
      const binds = await listSmppBinds(h.t.service.store.db, { seenSince: 0, accountId });
      assert.equal(binds.length, 5);
      assert.deepEqual(binds.map((b) => b.bindType).sort(), [
        'receiver',
        'transceiver',
        'transceiver',
        'transceiver',
        'transceiver',
      ]);
      assert.ok(
        binds.every((b) => b.username === 'limit1' && b.remoteAddress === '127.0.0.1' && b.receiptsWaiting === 0),
      );
    });

    it('beyond the submits per second: ESME_RTHROTTLED; beyond the window: ESME_RMSGQFUL', async () => {
      await h.customer('rate1', 'pw');
      await h.t.admin('smpp-limits', 'rate1', '--submits-per-second', '5');
      const esme = await connect();
      assert.equal(await esme.bind('transmitter', 'rate1', 'pw'), 0);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          esme.submit({
            destination_addr: `05212300${String(i).padStart(2, '0')}`,
            short_message: Buffer.from('fast'),
          }),
        ),
      );
      const statuses = answers.map((a) => a.command_status);
      assert.ok(statuses.filter((s) => s === 0).length <= 6, `accepted ${statuses.filter((s) => s === 0).length}`);
      assert.ok(statuses.filter((s) => s === 0x58).length >= 14, statuses.join(','));
      await h.t.admin('smpp-limits', 'rate1', '--submits-per-second', '0', '--window', '2');
      const windowed = await connect();
      assert.equal(await windowed.bind('transmitter', 'rate1', 'pw'), 0);
      const burst = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          windowed.submit({
            destination_addr: `05212301${String(i).padStart(2, '0')}`,
            short_message: Buffer.from('wide'),
          }),
        ),
      );
      assert.ok(
        burst.some((a) => a.command_status === 0x14),
        burst.map((a) => a.command_status).join(','),
      );
      assert.ok(burst.some((a) => a.command_status === 0));
    });
  });
}

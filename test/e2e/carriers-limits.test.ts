// A carrier's daily cap and its price per part, against two real `yona smsc-sim` processes on every store: once
// the first carrier of a route has taken its cap of SMS parts for the day, the rest of a campaign goes to the
// second, each message once; `yona admin carriers` shows the day's parts against the cap; a message whose every
// carrier is capped waits (not failed, no attempt spent) and leaves once the cap is raised; each message records
// what its carrier charges, and `yona admin report margins` adds it up per account, a reseller's sub-account
// under it, against what the accounts were charged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { calendarMonth } from '../../src/domain/dates.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, mobiles, newSender, type Sender } from '../delivery/delivery-helpers.ts';

const international = (phone: string) => `972${phone.slice(1)}`;
const CAP = 30;

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`daily cap and cost per part over two smsc-sim carriers (${target.name})`, () => {
    let a: SmscSimProcess;
    let b: SmscSimProcess;
    let t: TestService;
    let s: Sender;
    const base = 547_000_000 + index * 100_000;

    const addCarrier = (name: string, sim: SmscSimProcess, ...limits: string[]) =>
      t.admin(...simCarrierArgs(name, sim, '--window', '10', ...limits));
    const rowsOf = async (phones: string[]) =>
      t.service.store.db
        .selectFrom('messages')
        .select(['phone', 'carrier', 'state', 'status', 'attempts', 'error', 'parts', 'carrier_cost'])
        .where('phone', 'in', phones.map(international))
        .execute();
    const submitted = (phones: string[]) =>
      eventually(
        async () => {
          const rows = await rowsOf(phones);
          return rows.length === phones.length && rows.every((r) => r.carrier !== null) ? rows : undefined;
        },
        60_000,
        'every message taken by a carrier',
      );
    const countOn = async (sim: SmscSimProcess) => {
      const n = new Map<string, number>();
      for (const m of await sim.messages()) n.set(m.destination, (n.get(m.destination) ?? 0) + 1);
      return n;
    };
    const send = (sender: Sender, phones: string[], extra: Record<string, unknown> = {}) =>
      sender.sms({ destinations: { phone: phones.map((p) => ({ $: { id: p }, _: p })) }, ...extra });

    before(async () => {
      a = await startSmscSimProcess(['--receipt-delay', '20']);
      b = await startSmscSimProcess(['--receipt-delay', '20']);
      t = await startTestService(target);
      await addCarrier('a', a, '--daily-cap', String(CAP), '--cost-per-part', '2.5');
      await addCarrier('b', b, '--cost-per-part', '1.75');
      await t.admin('add-route', 'default', 'a', 'b');
      t = await t.restart({
        components: [
          carriersComponent({
            settings: { pollMs: 20, retryBaseMs: 200, retryMaxMs: 1000 },
            config: loadConfig({}),
            reloadMs: 300,
          }),
        ],
      });
      s = await newSender(t, 'capped', 10_000);
    });
    after(async () => {
      await t?.close();
      await a?.stop();
      await b?.stop();
    });

    it('past its daily cap the first carrier takes no more: the rest goes to the second, each message once', async () => {
      const phones = mobiles(2 * CAP, base);
      const reply = await send(s, phones, { message: 'capped campaign' });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      const rows = await submitted(phones);
      const onA = await countOn(a);
      const onB = await countOn(b);
      for (const p of phones) {
        const to = international(p);
        const row = rows.find((r) => r.phone === to)!;
        assert.equal((onA.get(to) ?? 0) + (onB.get(to) ?? 0), 1, `${p} reached the carriers exactly once`);
        assert.equal((row.carrier === 'a' ? onA : onB).get(to), 1, `${p} is on the carrier recorded (${row.carrier})`);
      }
      // One node: no overshoot at all (docs/carriers.md gives the bound across nodes).
      assert.equal(onA.size, CAP, 'the first carrier took exactly its cap of single-part messages');
      assert.equal(onB.size, phones.length - CAP, 'the second took the rest');
      const listed = (await t.admin('carriers')).join('\n');
      assert.match(
        listed,
        new RegExp(
          `carrier a: .*daily cap ${CAP} parts, 2\\.5 agorot per part; today ${CAP} of ${CAP} parts \\(capped\\)`,
        ),
      );
      assert.match(listed, /carrier b: .*1\.75 agorot per part; today 30 parts/);
    });

    it('a message whose every carrier is capped waits, spending no attempt, and leaves once the cap is raised', async () => {
      await t.admin('verify-sender', 'capped', 'OnlyA');
      await t.admin('add-route', 'default', 'a', '--source', 'OnlyA');
      await new Promise((r) => setTimeout(r, 1500)); // the running dispatcher's reload period
      const phones = mobiles(3, base + 50_000);
      assert.equal((await send(s, phones, { source: 'OnlyA', message: 'waits' })).status, 0);
      // Several retry periods (1 s in this test) pass: still queued, no status, no attempt counted, on no carrier.
      await new Promise((r) => setTimeout(r, 3000));
      for (const row of await rowsOf(phones)) {
        assert.equal(row.state, 'queued', `${row.phone} waits`);
        assert.equal(row.status, null);
        assert.equal(Number(row.attempts), 0, 'waiting for the cap spends no attempt');
        assert.match(row.error ?? '', /daily cap/);
      }
      for (const p of phones) assert.equal((await a.messages(international(p))).length, 0);
      await addCarrier('a', a, '--daily-cap', String(CAP + 3), '--cost-per-part', '2.5');
      const rows = await submitted(phones);
      for (const row of rows) assert.equal(row.carrier, 'a', `${row.phone} went out on a once its cap was raised`);
      assert.equal((await countOn(a)).size, CAP + 3);
    });

    it("each message records its carrier's price; the margins report adds it up per account, exactly", async () => {
      await t.admin('create-account', 'resl', '--password', 'secret-pw', '--reseller');
      await t.admin('create-account', 'resl-sub', '--password', 'secret-pw', '--parent', 'resl', '--credits', '100');
      const sub = await newSenderFor(t, 'resl-sub');
      await t.admin('add-route', 'default', 'b', '--account', 'resl');
      await new Promise((r) => setTimeout(r, 1500));
      const phones = mobiles(5, base + 60_000);
      const long = `${'two parts '.repeat(17)}end`; // 173 GSM-7 characters: 2 parts
      assert.equal((await send(sub, phones, { message: long })).status, 0);
      const rows = await submitted(phones);
      for (const row of rows) {
        assert.equal(row.carrier, 'b');
        assert.equal(Number(row.parts), 2);
        assert.equal(Number(row.carrier_cost), 3500, '2 parts at 1.75 agorot, kept in thousandths of an agora');
      }
      const month = calendarMonth(Date.now(), t.config.defaultTimeZone);
      const [json] = await t.admin('report', 'margins', '--month', month, '--credit-price', '8', '--json');
      const report = JSON.parse(json);
      const byName = new Map(report.accounts.map((x: { username: string }) => [x.username, x]));
      // capped: 33 single parts on a at 2.5, 30 on b at 1.75; 63 credits at 8 agorot.
      assert.deepEqual(byName.get('capped'), {
        username: 'capped',
        reseller: null,
        messages: 63,
        parts: 63,
        charged_credits: 63,
        charged_international_agorot: 0,
        charged_agorot: 504,
        carrier_cost_agorot: 135,
        margin_agorot: 369,
        unpriced_messages: 0,
      });
      assert.deepEqual(byName.get('resl-sub'), {
        username: 'resl-sub',
        reseller: 'resl',
        messages: 5,
        parts: 10,
        charged_credits: 10,
        charged_international_agorot: 0,
        charged_agorot: 80,
        carrier_cost_agorot: 17.5,
        margin_agorot: 62.5,
        unpriced_messages: 0,
      });
      assert.equal((byName.get('resl') as { messages: number }).messages, 0, 'the reseller is listed over its sub');
      assert.deepEqual(
        report.resellers.map((g: { reseller: string; accounts: number; margin_agorot: number }) => [
          g.reseller,
          g.accounts,
          g.margin_agorot,
        ]),
        [['resl', 2, 62.5]],
      );
      assert.deepEqual(
        [report.total.messages, report.total.parts, report.total.charged_agorot, report.total.carrier_cost_agorot],
        [68, 73, 584, 152.5],
      );
      assert.equal(report.total.margin_agorot, 431.5);
      // Every message here is a text: the channel breakdown is one line, the total's figures.
      assert.deepEqual(report.channels, [{ channel: 'sms', ...report.total }]);
      const text = await t.admin('report', 'margins', '--credit-price', '8');
      assert.match(text[0], new RegExp(`^margins ${month} \\(.+\\).*one credit at 8 agorot`));
      assert.match(
        text.find((l) => l.startsWith('total'))!,
        /^total\s+68\s+73\s+73\s+0\.00\s+5\.84\s+1\.525\s+4\.315$/,
      );
      assert.ok(
        text.some((l) => /^ {2}resl-sub\s+5\s+10\s+10\s/.test(l)),
        text.join('\n'),
      );
      const channels = text.indexOf('by channel:');
      assert.match(text[channels + 2], /^sms\s+68\s+73\s+73\s+0\.00\s+5\.84\s+1\.525\s+4\.315$/);
      await assert.rejects(t.admin('report', 'margin'), /unknown report "margin"; did you mean "margins"\?/);
      await assert.rejects(t.admin('report', 'margins', '--month', '2026-13'), /--month must be YYYY-MM/);
      await assert.rejects(t.admin('repotr', 'margins'), /did you mean "report"/);
    });
  });
}

// A sender for an existing account: its token and the verified sender Yona.
async function newSenderFor(t: TestService, username: string): Promise<Sender> {
  const token = (await t.admin('create-token', username)).at(-1)!;
  await t.admin('verify-sender', username, 'Yona');
  const call: Sender['call'] = (root, doc, options = {}) =>
    t.api(root, { user: { username }, ...doc }, { token, ...options });
  return {
    username,
    token,
    call,
    sms: (doc, options) => call('sms', { source: 'Yona', message: 'hello', ...doc }, options),
    balance: async () => ({ credits: 0, agorot: 0 }),
  };
}

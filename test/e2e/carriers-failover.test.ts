// Failover between carriers, against two real `yona smsc-sim` processes on every store: a route naming two
// carriers in order sends through the first; when it is killed mid-campaign the rest goes through the second,
// every message is recorded with the carrier that took it and none reaches both; a refusal that is final for the
// message (ESME_RINVDSTADR) is not tried elsewhere; a route changed with `yona admin` while the service runs
// applies without a restart.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { loadConfig } from '../../src/config.ts';
import { ConsoleClient } from '../helpers/console-client.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { simCarrierArgs, startSmscSimProcess, type SmscSimProcess } from '../helpers/smsc-sim-process.ts';
import { storeTargets } from '../helpers/stores.ts';
import { dlrById, eventually, mobiles, newSender, type Sender } from '../delivery/delivery-helpers.ts';

const international = (phone: string) => `972${phone.slice(1)}`;
// One CSV line's cells (quoted cells may hold commas and doubled quotes).
const csvCells = (line: string) =>
  [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map((m) =>
    m[1].startsWith('"') ? m[1].slice(1, -1).replaceAll('""', '"') : m[1],
  );

const targets = await storeTargets();
for (const [index, target] of targets.entries()) {
  describe(`failover between two smsc-sim carriers (${target.name})`, () => {
    let a: SmscSimProcess;
    let b: SmscSimProcess;
    let t: TestService;
    let s: Sender;
    const base = 546_000_000 + index * 100_000;

    const addCarrier = (name: string, sim: SmscSimProcess) => t.admin(...simCarrierArgs(name, sim, '--window', '10'));
    const carrierOf = async (phones: string[]) => {
      const rows = await t.service.store.db
        .selectFrom('messages')
        .select(['phone', 'carrier'])
        .where('phone', 'in', phones.map(international))
        .execute();
      return new Map(rows.map((r) => [r.phone, r.carrier]));
    };

    before(async () => {
      a = await startSmscSimProcess(['--receipt-delay', '20']);
      b = await startSmscSimProcess(['--receipt-delay', '20']);
      t = await startTestService(target);
      await addCarrier('a', a);
      await addCarrier('b', b);
      await t.admin('add-route', 'default', 'a', 'b');
      t = await t.restart({
        components: [
          carriersComponent({
            settings: { pollMs: 20, retryBaseMs: 200, retryMaxMs: 2000 },
            config: loadConfig({}),
            reloadMs: 300,
          }),
        ],
      });
      s = await newSender(t, 'failover', 100_000);
    });
    after(async () => {
      await t?.close();
      await a?.stop();
      await b?.stop();
    });

    it('a refusal final for the message is not tried on the next carrier', async () => {
      const [phone] = mobiles(1, base + 90_000);
      await a.post('/fail-next', { n: 1, status: 0x0b });
      await s.sms({ destinations: { phone: [{ $: { id: phone }, _: phone }] }, message: 'final' });
      await eventually(
        async () => (await dlrById(s, [phone])).get(phone)?.status === '1' || undefined,
        10_000,
        'status 1',
      );
      assert.equal((await carrierOf([phone])).get(international(phone)), 'a');
      assert.equal((await b.messages(international(phone))).length, 0, 'never sent to b');
    });

    it('a route changed with yona admin applies without a restart', async () => {
      await t.admin('add-route', 'default', 'b', 'a');
      const [phone] = mobiles(1, base + 80_000);
      await eventually(async () => {
        const output = (await t.admin('route-test', '--to', phone)).join('\n');
        return output.includes('in the order tried: b, a') || undefined;
      });
      // The running dispatcher picks the change up within its reload period.
      await new Promise((r) => setTimeout(r, 1500));
      await s.sms({ destinations: { phone: [{ $: { id: phone }, _: phone }] }, message: 'moved' });
      await eventually(
        async () => (await dlrById(s, [phone])).get(phone)?.status === '102' || undefined,
        10_000,
        '102',
      );
      assert.equal((await carrierOf([phone])).get(international(phone)), 'b');
      await t.admin('add-route', 'default', 'a', 'b');
      await new Promise((r) => setTimeout(r, 1500));
    });

    it('kill the first carrier mid-campaign: the rest goes through the second, each message once, carrier recorded', async () => {
      const phones = mobiles(400, base);
      const reply = await s.sms({
        destinations: { phone: phones.map((p) => ({ $: { id: p }, _: p })) },
        message: 'failover campaign',
      });
      assert.equal(reply.status, 0, JSON.stringify(reply));
      await eventually(async () => ((await a.stats()).submitsReceived >= 40 ? true : undefined), 20_000, 'a under way');
      await a.stop();
      const carriers = await eventually(
        async () => {
          const byPhone = await carrierOf(phones);
          const report = await dlrById(s, phones);
          const done = phones.every((p) => report.get(p)?.status === '102' || report.get(p)?.status === '-1');
          return done && [...byPhone.values()].every((c) => c !== null) ? byPhone : undefined;
        },
        60_000,
        'every message submitted',
      );
      // Counted on both simulators: a's log as it wrote it when it stopped, b's now.
      const count = (messages: Array<{ destination: string }>) => {
        const n = new Map<string, number>();
        for (const m of messages) n.set(m.destination, (n.get(m.destination) ?? 0) + 1);
        return n;
      };
      const onA = count(a.receivedAtExit);
      const onB = count(await b.messages());
      assert.ok(onA.size >= 40, `a's log was kept when it stopped (${onA.size} messages)`);
      for (const p of phones) {
        const to = international(p);
        const carrier = carriers.get(to);
        assert.ok(carrier === 'a' || carrier === 'b', `${p} recorded with a carrier`);
        assert.equal((onA.get(to) ?? 0) + (onB.get(to) ?? 0), 1, `${p} reached the carriers exactly once`);
        assert.equal((carrier === 'a' ? onA : onB).get(to), 1, `${p} is on the carrier recorded for it (${carrier})`);
      }
      // dlr and the console's message log show the carrier of each message.
      const report = await dlrById(s, phones);
      for (const p of phones) assert.equal(report.get(p)?.carrier, carriers.get(international(p)), `${p}: dlr carrier`);
      const web = new ConsoleClient(t.httpsUrl);
      await web.login('failover', 'secret-pw');
      const page = await web.get('/console/messages');
      assert.match(page.text, /<th scope="col">Carrier<\/th>/);
      const csv = (await web.get('/console/messages.csv')).text.split('\r\n').filter(Boolean);
      const header = csvCells(csv[0].replace('\uFEFF', ''));
      const phoneAt = header.indexOf('phone');
      const carrierAt = header.indexOf('carrier');
      let shown = 0;
      for (const line of csv.slice(1)) {
        const cells = csvCells(line);
        const phone = cells[phoneAt].trim(); // written as a tab and the digits, kept as text by spreadsheets
        if (!phones.includes(phone)) continue;
        assert.equal(cells[carrierAt], carriers.get(international(phone)), `${phone}: console carrier`);
        shown++;
      }
      assert.ok(shown > 0, 'the console lists the campaign with its carriers');
      const viaB = phones.filter((p) => carriers.get(international(p)) === 'b').length;
      assert.ok(viaB > 0 && viaB < phones.length, `both carriers took part (${viaB} of ${phones.length} via b)`);
    });
  });
}

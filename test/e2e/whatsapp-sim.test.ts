// The WhatsApp Cloud API carrier against the bundled Cloud API simulator as its own process (`yona wa-sim`), on
// both stores: the simulator's signed webhooks come back to /webhooks/whatsapp/CARRIER, a user's message opens
// the window and a free-form reply inside it is read, a template with a variable is read, and every scripted
// outcome ends as documented: 0429 and 1048 throttled then taken (never failed), 1026 has no WhatsApp (305 with
// 131026), 1001 fails after delivered (stays delivered), 2000 read without delivered, and a free-form text
// outside the window fails with 131047 (306).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { ingressComponent } from '../../src/delivery/ingress.ts';
import { isWindowOpen } from '../../src/store/whatsapp.ts';
import { dlrById, eventually, newSender, windowAroundNow, type Sender } from '../delivery/delivery-helpers.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { SIM_APP_SECRET, SIM_TOKEN, startWaSimProcess, type WaSimProcess } from '../helpers/wa-sim-process.ts';
import { queueWhatsapp, type QueuedWhatsapp } from '../helpers/whatsapp.ts';
import { whatsappCarrierArgs } from '../helpers/whatsapp-carrier.ts';

const BUSINESS = '972771230000';

for (const target of await storeTargets()) {
  describe(`WhatsApp against the Cloud API simulator process (${target.name})`, () => {
    let sim: WaSimProcess;
    let t: TestService;
    let s: Sender;
    let accountId: number;
    const carrier = `wa-sim-${target.name}`;

    const queue = (externalId: string, phone: string, text: string, template?: QueuedWhatsapp['template']) =>
      queueWhatsapp(t, { accountId, source: BUSINESS, externalId, phone, text, template });
    const reportOf = async (id: string) => (await dlrById(s, [id])).get(id);
    const reaches = (id: string, status: string, ms = 15_000) =>
      eventually(
        async () => {
          const r = await reportOf(id);
          return r?.status === status ? r : undefined;
        },
        ms,
        `${id} at ${status}`,
      );

    before(async () => {
      sim = await startWaSimProcess(['--status-delay', '40', '--retry-base', '100']);
      const first = await startTestService(target);
      await first.admin(
        ...whatsappCarrierArgs(carrier, {
          business: BUSINESS,
          phoneNumberId: BUSINESS,
          wabaId: 'WABA1',
          token: SIM_TOKEN,
          appSecret: SIM_APP_SECRET,
          verifyToken: 'v',
          graphUrl: sim.graphUrl,
        }),
      );
      await first.admin('add-route', 'default', carrier, '--channel', 'whatsapp');
      t = await first.restart({
        components: [
          carriersComponent({ settings: { pollMs: 20, retryBaseMs: 100 }, config: loadConfig({}) }),
          ingressComponent(),
        ],
      });
      s = await newSender(t, 'wasimacct', 100);
      accountId = await t.accountId('wasimacct');
      await t.admin('whatsapp-number', 'add', 'wasimacct', BUSINESS);
      await sim.control.post('/webhook', { url: `${t.httpUrl}/webhooks/whatsapp/${carrier}` });
    });
    after(async () => {
      await t?.close();
      await sim?.stop();
    });

    it('a user writes: the window opens and incoming polls it; a free-form reply inside it is read', async () => {
      const user = '972521230001';
      const since = Date.now();
      await sim.control.mo({ from: user, to: BUSINESS, text: 'hi there', name: 'Noa' });
      await eventually(() => isWindowOpen(t.service.store.db, accountId, BUSINESS, user, Date.now()), 8000, 'window');
      const polled = await s.call('incoming', windowAroundNow(since));
      assert.deepEqual(
        (polled.transactions as Array<Record<string, string>>).map((r) => [r.phone, r.message, r.channel]),
        [[user, 'hi there', 'whatsapp']],
      );
      await queue('r1', user, 'thanks for writing');
      const read = await reaches('r1', '303');
      assert.equal(read.channel, 'whatsapp');
      assert.deepEqual(
        (await sim.control.messages(user)).map((m: any) => m.text ?? m.type),
        ['thanks for writing'],
      );
    });

    it('sends a template with its variable, read without a window', async () => {
      await queue('tp1', '972521230002', 'Your order 77 is on its way.', {
        name: 'order_update',
        language: 'en',
        parameters: ['77'],
      });
      await reaches('tp1', '303');
    });

    it('fails a free-form text outside the window with 131047', async () => {
      await queue('nw1', '972521230003', 'out of the blue');
      const r = await reaches('nw1', '306');
      assert.equal(r.error_code, '131047');
    });

    it('plays every scripted outcome as documented', async () => {
      const template = { name: 'hello_world', language: 'en_US', parameters: [] };
      await queue('o429', '972521230429', 'hello', template);
      await queue('o1048', '972521231048', 'hello', template);
      await queue('o1026', '972521231026', 'hello', template);
      await queue('o1001', '972521231001', 'hello', template);
      await queue('o2000', '972521232000', 'hello', template);
      await reaches('o429', '303');
      await reaches('o1048', '303');
      assert.equal((await reaches('o1026', '305')).error_code, '131026');
      await reaches('o2000', '303');
      await reaches('o1001', '302');
      // Its failure comes after delivered: it stays delivered.
      await eventually(
        async () => (await sim.control.webhooks()).some((w: any) => JSON.stringify(w).includes('131000')) || undefined,
        8000,
        'the late failure posted',
      );
      await new Promise((r) => setTimeout(r, 800));
      assert.equal((await reportOf('o1001'))!.status, '302');
      assert.equal((await sim.control.messages('972521230429')).length, 1, 'throttled, then sent once');
    });
  });
}

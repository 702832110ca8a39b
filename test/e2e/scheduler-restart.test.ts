// A campaign due while the service was down goes out on start, on every store: a service with every component
// `yona serve` runs (scheduler, bundled SMSC simulator, dispatcher, receipts...) accepts sends scheduled a
// minute ahead in JSON and XML and is stopped before they are due; its clock (injected) passes their timing
// while it is down; a new service on the same store releases and sends them at start, and `dlr` reports them
// delivered. No sleeping: the clock is the service's own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultComponents } from '../../src/cli/serve.ts';
import { fromZoned } from '../../src/domain/dates.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets, type StoreTarget } from '../helpers/stores.ts';
import { campaignRow, xmlField, xmlStatus } from '../operations/send-helpers.ts';
import { eventually, newSender, settleOnClose, windowAroundNow } from '../delivery/delivery-helpers.ts';

const at = (hour: number, minute: number) =>
  fromZoned({ year: 2026, month: 7, day: 1, hour, minute, second: 0 }, 'Asia/Jerusalem');

const targets = await storeTargets();
for (const target of targets) {
  describe(`scheduler across a restart (${target.name})`, () => {
    it('campaigns that fell due while the service was stopped are sent when it starts', async () => {
      const created = await target.create();
      // Both services open this one store; it is removed at the end, not when the first one closes.
      const sameStore: StoreTarget = {
        name: target.name,
        create: async () => ({ env: created.env, cleanup: async () => {} }),
      };
      let now = at(9, 0);
      const start = async () => {
        const t = await startTestService(sameStore, { clock: () => now, components: defaultComponents() });
        settleOnClose(t);
        return t;
      };
      let t: TestService | undefined;
      try {
        t = await start();
        const s = await newSender(t, 'restarter', 100);
        const json = await s.sms({
          destinations: { phone: [{ $: { id: 'r-json' }, _: '0521114321' }] },
          message: 'due while down',
          timing: '01/07/26 09:01',
        });
        assert.deepEqual([json.status, json.timing], [0, '01/07/26 09:01']);
        const xml = await t.post(
          '<sms><user><username>restarter</username></user><source>Yona</source><destinations><phone id="r-xml">0521114322</phone></destinations>' +
            '<message>due while down</message><timing>01/07/26 09:01</timing></sms>',
          { contentType: 'application/xml', token: s.token },
        );
        assert.equal(xmlStatus(xml.text), 0);
        const ids = [json.campaign_id, Number(xmlField(xml.text, 'campaign_id'))];
        for (const id of ids) assert.equal((await campaignRow(t, id)).state, 'scheduled');
        await t.close();
        t = undefined;

        now = at(9, 5); // the timing passed while nothing ran
        t = await start();
        const restarted = t;
        const statuses = async () => {
          const reply = await restarted.api(
            'dlr',
            {
              user: { username: s.username },
              transactions: { external_id: ['r-json', 'r-xml'] },
              ...windowAroundNow(now),
            },
            { token: s.token },
          );
          return (reply.transactions as Array<Record<string, string>>)
            .map((r) => `${r.external_id}:${r.status}`)
            .sort()
            .join(' ');
        };
        await eventually(
          async () => (await statuses()) === 'r-json:102 r-xml:102',
          10_000,
          'both campaigns delivered after the restart',
        );
        for (const id of ids) {
          const campaign = await campaignRow(t, id);
          assert.deepEqual([campaign.state, Number(campaign.released_at)], ['sent', now]);
        }
      } finally {
        await t?.close();
        await created.cleanup();
      }
    });
  });
}

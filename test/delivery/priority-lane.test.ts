// The dispatcher's priority lane on every store: a one-time code accepted while a campaign is being submitted
// through a throttled carrier (400 submit_sm/s) reaches the SMSC ahead of the campaign's remaining messages,
// instead of waiting for the whole campaign.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { storeTargets } from '../helpers/stores.ts';
import {
  eventually,
  mobiles,
  newSender,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from './delivery-helpers.ts';

const targets = await storeTargets();
const CAMPAIGN = 1200;

for (const target of targets) {
  describe(`dispatcher priority lane (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;

    before(async () => {
      h = await startDelivery(target, { carrier: { maxSubmitsPerSecond: 400 }, settings: { batchSize: 200 } });
      s = await newSender(h.t, 'busy', CAMPAIGN + 10);
    });
    after(() => h.close());

    it('submits a one-time code ahead of a campaign still being dispatched', async () => {
      const phones = mobiles(CAMPAIGN, 530_000_000);
      const campaign = await s.sms({ destinations: { phone: phones }, message: 'campaign traffic' });
      assert.equal(campaign.status, 0, campaign.message);
      await eventually(() => h.simulator.messages().length >= 100 || undefined, 10_000, 'the campaign under way');
      const reply = await s.call('send_otp', { source: 'Yona', phone: '0521250001' });
      assert.equal(reply.status, 0, reply.message);
      const [code] = await eventually(
        () => {
          const got = h.simulator.messages({ to: '972521250001' });
          return got.length ? got : undefined;
        },
        10_000,
        'the code at the SMSC',
      );
      await eventually(
        () => h.simulator.messages().length >= CAMPAIGN + 1 || undefined,
        20_000,
        'the rest of the campaign',
      );
      const campaignAfter = h.simulator
        .messages()
        .filter((m) => m.text === 'campaign traffic' && m.receivedAt > code.receivedAt).length;
      // Behind the campaign it would have come after all of them (about 2.5 s at 400/s).
      assert.ok(campaignAfter > 500, `${campaignAfter} campaign messages were submitted after the code`);
    });
  });
}

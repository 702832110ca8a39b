// A carrier on an IPv6 address: the simulator listens on ::1 (its --host), Yona binds to it there, and a send is
// submitted over that bind and reported delivered.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ipv6Available } from '../helpers/ipv6.ts';
import { storeTargets } from '../helpers/stores.ts';
import {
  eventually,
  newSender,
  startDelivery,
  stateCounts,
  type DeliveryHarness,
} from '../delivery/delivery-helpers.ts';

const [sqlite] = await storeTargets();
const ipv6 = await ipv6Available(); // a notice and a skip without ::1; a failure under REQUIRE_IPV6=1 (CI)

describe('a carrier on IPv6 (::1)', { skip: !ipv6 && 'no IPv6 loopback on this host' }, () => {
  let h: DeliveryHarness;
  before(async () => {
    h = await startDelivery(sqlite, { sim: { host: '::1' }, carrier: { host: '::1' } });
  });
  after(() => h?.close());

  it('binds over IPv6, submits and gets the receipt', async () => {
    const s = await newSender(h.t, 'sixer');
    const sent = await s.sms({ destinations: { phone: '0521239009' }, message: 'over v6' });
    assert.equal(sent.status, 0, sent.message);
    await eventually(
      async () => (await stateCounts(h.t, sent.campaign_id)).done === 1,
      10_000,
      'the message delivered',
    );
    const row = await h.t.service.store.db
      .selectFrom('messages')
      .select('status')
      .where('campaign_id', '=', sent.campaign_id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(row.status), 102);
    const [m] = h.simulator.messages().filter((x) => x.text === 'over v6');
    assert.match(m.peer, /^::1:\d+$/, `the bind came from ${m.peer}`);
  });
});

// A node's view of the carriers' daily caps on every store: parts reserved before a submit count at once, given
// back when the carrier refuses, and counted in the store once recorded (so a second node sees them at its next
// read); a message whose parts no longer fit is refused while a smaller one still fits; a new day in
// YONA_TIME_ZONE starts from zero.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { calendarDay } from '../../src/domain/dates.ts';
import { DailyCaps } from '../../src/delivery/daily-caps.ts';
import { addCarrierUsage, carrierUsageOn } from '../../src/store/carrier-usage.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const ZONE = 'Asia/Jerusalem';

for (const target of await storeTargets()) {
  describe(`daily caps (${target.name})`, () => {
    let t: TestService;
    let now = Date.parse('2026-11-26T21:00:00Z'); // 23:00 in Jerusalem
    before(async () => {
      t = await startTestService(target);
    });
    after(() => t?.close());

    it('counts reservations, refusals and recorded parts, across two nodes, and starts again the next day', async () => {
      const db = t.service.store.db;
      const one = new DailyCaps(db, ZONE, () => now);
      const two = new DailyCaps(db, ZONE, () => now);
      const caps = new Map([['a', { dailyCap: 10, costPerPart: 2.5 }]]);
      one.setCaps(caps);
      two.setCaps(caps);
      const day = one.today();
      assert.equal(day, '2026-11-26');
      assert.ok(one.reserve('a', 4));
      assert.ok(one.reserve('a', 4));
      assert.equal(one.reserve('a', 3), false, 'three parts do not fit under 10 with 8 held');
      assert.ok(one.reserve('a', 2), 'two still do');
      one.release('a', 2); // the carrier refused it
      // The first two are recorded as the dispatcher's transaction does it.
      await addCarrierUsage(db, day, new Map([['a', 8]]));
      one.recorded('a', 4, true);
      one.recorded('a', 4, true);
      assert.equal(one.used('a'), 8);
      assert.equal((await carrierUsageOn(db, day)).get('a'), 8);
      await two.refresh();
      assert.equal(two.used('a'), 8, 'the other node reads what was recorded');
      assert.ok(two.reserve('a', 2));
      assert.ok(two.full('a'), 'full once the cap is reached');
      assert.equal(one.full('b', 1000), false, 'a carrier without a cap is never full');
      assert.equal(one.costPerPartMilli('a'), 2500);
      await one.refresh();
      assert.equal(one.used('a'), 8, 'a read replaces what this node had recorded since the last one');
      now += 2 * 3_600_000; // 01:00 the next day in Jerusalem (still the 26th in UTC)
      assert.equal(calendarDay(now, 'UTC'), '2026-11-26');
      assert.equal(one.today(), '2026-11-27');
      assert.equal(one.used('a'), 0, 'a new day in YONA_TIME_ZONE starts from zero');
      assert.ok(one.reserve('a', 10));
    });
  });
}

// Concatenated inbound SMS on every store: each part is stored before it is acknowledged, so parts survive a
// restart between them; a part delivered twice counts once; parts arriving at once complete the message once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InboundSms } from '../../src/carriers/types.ts';
import { InboundHandler } from '../../src/delivery/inbound.ts';
import { deliverySettings } from '../../src/config.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const TEXTS = ['שלום, זה החלק הראשון; ', 'this is the second part; ', 'and the third.'];

const targets = await storeTargets();
for (const target of targets) {
  describe(`inbound parts (${target.name})`, () => {
    let t: TestService;
    const handler = () =>
      new InboundHandler({
        store: t.service.store,
        logger: t.service.logger,
        signals: t.service.signals,
        clock: () => Date.now(),
        settings: deliverySettings({}),
      });
    const part = (from: string, ref: number, seq: number): InboundSms => ({
      from,
      to: '0559990000',
      text: TEXTS[seq - 1],
      at: Date.now() + seq,
      part: { ref, total: 3, seq },
    });
    const incoming = (from: string) =>
      t.service.store.db
        .selectFrom('inbound_messages')
        .select(['text', 'received_at'])
        .where('phone', '=', from)
        .execute();
    const partsLeft = async () => (await t.service.store.db.selectFrom('inbound_parts').select('id').execute()).length;

    before(async () => {
      t = await startTestService(target);
      await t.account('receiver');
      await t.admin('add-number', 'receiver', '0559990000');
    });
    after(() => t.close());

    it('a message whose parts straddle a restart is stored whole, once; a repeated part changes nothing', async () => {
      const from = '972501234001';
      const before = handler();
      assert.deepEqual(await before.handle('sim', part(from, 7, 2)), { routed: 'partial' });
      assert.deepEqual(await before.handle('sim', part(from, 7, 1)), { routed: 'partial' });
      const afterRestart = handler();
      assert.deepEqual(
        await afterRestart.handle('sim', part(from, 7, 1)),
        { routed: 'partial' },
        'redelivered part kept once',
      );
      assert.deepEqual(await incoming(from), []);
      const done = await afterRestart.handle('sim', part(from, 7, 3));
      assert.equal(done.routed, true);
      const rows = await incoming(from);
      assert.deepEqual(
        rows.map((r) => r.text),
        [TEXTS.join('')],
      );
      assert.equal(await partsLeft(), 0);
    });

    it('parts arriving at the same time (two binds) complete the message exactly once', async () => {
      const from = '972501234002';
      const h = handler();
      const outcomes = await Promise.all([1, 2, 3].map((seq) => h.handle('sim', part(from, 9, seq))));
      assert.equal(outcomes.filter((o) => o.routed === true).length, 1);
      assert.deepEqual(
        (await incoming(from)).map((r) => r.text),
        [TEXTS.join('')],
      );
      assert.equal(await partsLeft(), 0);
    });
  });
}

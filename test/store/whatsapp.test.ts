// WhatsApp's rows on every store: a business number belongs to one account (a second account is refused, the
// holder may change its carrier), and a user's message opens a 24-hour window that a late repeat never moves back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  grantWhatsappNumber,
  isWindowOpen,
  listWhatsappNumbers,
  mayUseWhatsappNumber,
  openWindow,
  revokeWhatsappNumber,
  WINDOW_MS,
} from '../../src/store/whatsapp.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';

const targets = await storeTargets();
for (const target of targets) {
  describe(`WhatsApp numbers and windows (${target.name})`, () => {
    let t: TestService;
    let a: number;
    let b: number;
    const db = () => t.service.store.db;
    const business = '972771234567';

    before(async () => {
      t = await startTestService(target);
      await t.account('waone');
      await t.account('watwo');
      a = await t.accountId('waone');
      b = await t.accountId('watwo');
    });
    after(() => t.close());

    it('grants a business number to one account only; revoking takes it back', async () => {
      assert.equal(await grantWhatsappNumber(db(), { accountId: a, businessNumber: business, carrier: null }, 1), null);
      assert.deepEqual(await grantWhatsappNumber(db(), { accountId: b, businessNumber: business, carrier: null }, 2), {
        heldBy: a,
      });
      assert.equal(
        await grantWhatsappNumber(db(), { accountId: a, businessNumber: business, carrier: 'wa1' }, 3),
        null,
      );
      assert.deepEqual(
        (await listWhatsappNumbers(db(), a)).map((n) => [n.businessNumber, n.carrier]),
        [[business, 'wa1']],
      );
      assert.equal(await mayUseWhatsappNumber(db(), a, business), true);
      assert.equal(await mayUseWhatsappNumber(db(), b, business), false);
      assert.equal(await revokeWhatsappNumber(db(), b, business), false);
      assert.equal(await revokeWhatsappNumber(db(), a, business), true);
      assert.equal(await mayUseWhatsappNumber(db(), a, business), false);
    });

    it('opens the window for 24 hours from the last message; a late repeat does not move it back', async () => {
      const user = '972501110000';
      const t0 = 1_800_000_000_000;
      assert.equal(await isWindowOpen(db(), a, business, user, t0), false);
      await openWindow(db(), { accountId: a, businessNumber: business, user }, t0);
      assert.equal(await isWindowOpen(db(), a, business, user, t0 + WINDOW_MS - 1), true);
      assert.equal(await isWindowOpen(db(), a, business, user, t0 + WINDOW_MS), false);
      assert.equal(await isWindowOpen(db(), b, business, user, t0 + 1), false, 'another account has no window');
      await openWindow(db(), { accountId: a, businessNumber: business, user }, t0 + 3600_000);
      await openWindow(db(), { accountId: a, businessNumber: business, user }, t0);
      assert.equal(await isWindowOpen(db(), a, business, user, t0 + WINDOW_MS + 1000), true);
      const scoped = 'IL.1234567890';
      await openWindow(db(), { accountId: a, businessNumber: business, user: scoped }, t0);
      assert.equal(await isWindowOpen(db(), a, business, scoped, t0 + 1), true);
    });
  });
}

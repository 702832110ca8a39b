// End to end on every store with an SMSC whose submit_sm_resp ids are hex and whose receipts say them in decimal
// (or the reverse): without receiptIds the receipts stay unmatched (dlr -1); with it set right they match (102,
// and 15 for a destination ending 0015). Also `yona admin add-carrier --receipt-ids` and `yona admin carriers`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sealingKey } from '../../src/secret-key.ts';
import { loadCarrierSetup } from '../../src/delivery/carrier-setup.ts';
import type { SimIdFormat } from '../../src/carriers/simulator/index.ts';
import type { ReceiptIdMode } from '../../src/carriers/smpp/ids.ts';
import { storeTargets, type StoreTarget } from '../helpers/stores.ts';
import { startTestService } from '../helpers/service.ts';
import { dlrById, eventually, newSender, settleOnClose, startDelivery } from '../delivery/delivery-helpers.ts';

const PHONES: Record<string, string> = { '0521230015': '15', '0521231234': '102' };

// Sends to PHONES through a simulator with `idFormat` and a carrier with `receiptIds`; returns dlr statuses once
// every receipt reached the service, plus the carrier ids recorded and the ids the receipts carried.
async function run(
  target: StoreTarget,
  idFormat: SimIdFormat,
  receiptIds: ReceiptIdMode | undefined,
  expect: (s: Record<string, string>) => boolean,
) {
  const h = await startDelivery(target, {
    sim: { idFormat },
    carrier: receiptIds ? { receiptIds } : {},
    settings: { receiptWindowMs: 60_000 },
  });
  try {
    const s = await newSender(h.t, 'ids1', 100);
    const phones = Object.keys(PHONES);
    const reply = await s.sms({
      destinations: { phone: phones.map((p) => ({ $: { id: `r-${p}` }, _: p })) },
      message: 'ids',
    });
    assert.equal(reply.status, 0);
    const db = h.t.service.store.db;
    // Every receipt reached the store: matched (its message has a final status) or kept as pending.
    await eventually(
      async () => {
        const matched = await db
          .selectFrom('messages')
          .select('id')
          .where('campaign_id', '=', reply.campaign_id)
          .where('status', '>', 0)
          .execute();
        const pending = await db.selectFrom('pending_receipts').select('id').execute();
        return matched.length + pending.length >= phones.length;
      },
      8000,
      'receipts stored',
    );
    const statuses = await eventually(
      async () => {
        const r = await dlrById(
          s,
          phones.map((p) => `r-${p}`),
        );
        const out = Object.fromEntries(phones.map((p) => [p, r.get(`r-${p}`)?.status ?? '']));
        return expect(out) ? out : undefined;
      },
      8000,
      'dlr statuses',
    );
    const recorded = (await db.selectFrom('carrier_message_ids').select('carrier_message_id').execute())
      .map((r) => r.carrier_message_id)
      .sort();
    const pending = (await db.selectFrom('pending_receipts').select('carrier_message_id').execute())
      .map((r) => r.carrier_message_id)
      .sort();
    return {
      statuses,
      recorded,
      pending,
      sim: h.simulator
        .messages()
        .flatMap((m) => m.messageIds)
        .sort(),
    };
  } finally {
    await h.close();
  }
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`receipt ids in another base (${target.name})`, () => {
    it('unset: receipts of a hex-submit, decimal-receipt SMSC stay unmatched (dlr -1)', async () => {
      const r = await run(target, 'submit-hex', undefined, (st) => Object.values(st).every((v) => v === '-1'));
      assert.deepEqual(r.statuses, { '0521230015': '-1', '0521231234': '-1' });
      assert.deepEqual(r.recorded, r.sim, 'submit ids recorded as the SMSC gave them');
      assert.ok(
        r.pending.length === 2 && r.pending.every((id) => /^\d+$/.test(id)),
        `the decimal receipt ids found nothing: ${r.pending}`,
      );
    });

    for (const [idFormat, mode] of [
      ['submit-hex', 'submit-hex'],
      ['receipt-hex', 'receipt-hex'],
    ] as const) {
      it(`receiptIds ${mode} with a ${idFormat} SMSC: receipts match (102, and 15 for 0015)`, async () => {
        const r = await run(target, idFormat, mode, (st) => Object.entries(PHONES).every(([p, v]) => st[p] === v));
        assert.deepEqual(r.statuses, PHONES);
        assert.ok(
          r.recorded.length === 2 && r.recorded.every((id) => /^[1-9]\d*$/.test(id)),
          `canonical decimal ids recorded: ${r.recorded}`,
        );
        assert.deepEqual(r.pending, []);
      });
    }

    it('yona admin add-carrier --receipt-ids stores it, carriers shows it, a bad value is one clear line', async () => {
      const t = await startTestService(target);
      settleOnClose(t);
      try {
        const base = ['--host', 'smpp.example.net', '--port', '2775', '--system-id', 'yona', '--password', 'pw'];
        const out = await t.admin('add-carrier', 'hexy', ...base, '--receipt-ids', 'submit-hex');
        assert.match(out.join('\n'), /added carrier hexy: .*receipt ids submit-hex/);
        await t.admin('add-carrier', 'plain', ...base);
        const listed = (await t.admin('carriers')).join('\n');
        assert.match(listed, /carrier hexy: .*, receipt ids submit-hex/);
        assert.doesNotMatch(listed, /carrier plain: .*receipt ids/);
        const setup = await loadCarrierSetup(t.service.store.db, undefined, () => sealingKey(t.config));
        assert.deepEqual(
          setup.carriers.map((c) => [c.name, c.receiptIds]),
          [
            ['hexy', 'submit-hex'],
            ['plain', 'as-is'],
          ],
        );
        await assert.rejects(
          t.admin('add-carrier', 'bad', ...base, '--receipt-ids', 'hex'),
          (err: Error) =>
            err.message === '--receipt-ids must be one of as-is, submit-hex, receipt-hex, both-hex, got "hex"',
        );
      } finally {
        await t.close();
      }
    });
  });
}

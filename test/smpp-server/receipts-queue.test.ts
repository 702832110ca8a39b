// Receipts wait in the store while the account has no receiver bind, and each goes out once when it binds
// again: 1,000 receipts produced with the receiver down, all delivered exactly once. A deliver_sm left
// unanswered, or refused, is sent again; one whose bind closed goes out on the next bind.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countSmppOutboxWaiting } from '../../src/store/smpp-outbox.ts';
import { eventually } from '../delivery/delivery-helpers.ts';
import { storeTargets } from '../helpers/stores.ts';
import { Esme } from './esme.ts';
import { startSmppHarness, type SmppHarness } from './harness.ts';

const RECEIPTS = 1000;

const targets = await storeTargets();
for (const target of targets) {
  describe(`SMPP server: the receipt queue (${target.name})`, () => {
    let h: SmppHarness;
    const open: Esme[] = [];

    before(async () => {
      h = await startSmppHarness(target, { server: { resendMs: 800, retryMs: 200 } });
      await h.customer('queue1', 'pw', { credits: 100_000 });
    });
    after(async () => {
      for (const e of open) e.close();
      await h?.close();
    });

    const waiting = async () =>
      (await countSmppOutboxWaiting(h.t.service.store.db)).get(await h.t.accountId('queue1')) ?? 0;

    async function submitMany(esme: Esme, n: number, prefix: string): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < n; i += 50) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(50, n - i) }, (_, j) =>
            esme.submit({
              destination_addr: `0525${prefix}${String(i + j).padStart(4, '0')}9`,
              short_message: Buffer.from(`queued ${i + j}`),
            }),
          ),
        );
        for (const r of batch) {
          assert.equal(r.command_status, 0);
          ids.push(String(r.message_id));
        }
      }
      return ids;
    }

    it('1,000 receipts produced while no receiver is bound are all delivered, each once, when one binds', async () => {
      const tx = await Esme.connect(h.port);
      open.push(tx);
      assert.equal(await tx.bind('transmitter', 'queue1', 'pw'), 0);
      const ids = await submitMany(tx, RECEIPTS, '1');
      await eventually(async () => ((await waiting()) >= RECEIPTS ? true : undefined), 60_000, 'every receipt queued');
      assert.equal(tx.received.length, 0, 'a transmitter gets no deliver_sm');
      const rx = await Esme.connect(h.port);
      open.push(rx);
      assert.equal(await rx.bind('receiver', 'queue1', 'pw'), 0);
      await rx.until(() => rx.receipts().length >= RECEIPTS, 60_000, `${RECEIPTS} receipts`);
      await new Promise((r) => setTimeout(r, 1500));
      const got = rx.receipts().map((r) => String(r.pdu.receipted_message_id));
      assert.equal(got.length, RECEIPTS, 'no receipt twice');
      assert.deepEqual([...new Set(got)].sort(), [...ids].sort());
      assert.equal(await waiting(), 0);
      await rx.unbind();
      await tx.unbind();
    });

    it('a deliver_sm left unanswered, or refused, is sent again; those of a bind that closed go out on the next', async () => {
      const tx = await Esme.connect(h.port);
      open.push(tx);
      assert.equal(await tx.bind('transmitter', 'queue1', 'pw'), 0);
      const silent = await Esme.connect(h.port);
      open.push(silent);
      silent.answerWith = null;
      assert.equal(await silent.bind('receiver', 'queue1', 'pw'), 0);
      const ids = await submitMany(tx, 20, '2');
      await silent.until(() => silent.receipts().length >= 20, 20_000, 'unanswered receipts');
      await silent.until(() => silent.receipts().length >= 40, 20_000, 'sent again when unanswered');
      silent.close();
      const refusing = await Esme.connect(h.port);
      open.push(refusing);
      refusing.answerWith = 0x08;
      assert.equal(await refusing.bind('receiver', 'queue1', 'pw'), 0);
      await refusing.until(() => refusing.receipts().length >= 20, 20_000, 'refused receipts');
      refusing.close();
      const rx = await Esme.connect(h.port);
      open.push(rx);
      assert.equal(await rx.bind('transceiver', 'queue1', 'pw'), 0);
      await rx.until(() => new Set(rx.receipts().map((r) => r.pdu.receipted_message_id)).size >= 20, 20_000, 'all 20');
      assert.deepEqual(
        [...new Set(rx.receipts().map((r) => String(r.pdu.receipted_message_id)))].sort(),
        [...ids].sort(),
      );
      await eventually(async () => ((await waiting()) === 0 ? true : undefined), 10_000, 'the outbox empty');
    });
  });
}

// The figures an operator alerts on, read from /metrics of a service sending through in-memory carriers on every
// store: messages diverted away from a down carrier counted as diverted and not as its refusals, delivery outcomes
// per carrier (delivered, failed, expired), receipts that match no message for over a minute, and the push backlog, failures and
// disabled registrations.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { registerProtocol } from '../../src/carriers/index.ts';
import type { Carrier, OutboundSms, Receipt, SubmitResult } from '../../src/carriers/types.ts';
import { loadConfig } from '../../src/config.ts';
import { carriersComponent } from '../../src/delivery/carriers.ts';
import { createPusher } from '../../src/delivery/pusher.ts';
import { DELIVERY, type DeliveryStatus } from '../../src/domain/status.ts';
import { startPushReceiver, type PushReceiver } from '../helpers/push-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { storeTargets } from '../helpers/stores.ts';
import { dlrById, eventually, newSender, settleOnClose, type Sender } from './delivery-helpers.ts';

/**
 * `down` has no bind and never takes a message; `dropping` loses its bind on its first submit (which it never
 * sent); `up` takes every message and answers with a receipt by its text (deliver, expire, fail), refuses
 * "refuse" for good, and for "ghost" also sends a receipt for a message it never had.
 */
class MeteredCarrier implements Carrier {
  readonly protocol = 'metered';
  readonly inFlightLimit = 10;
  private receipts: Array<(r: Receipt) => void | Promise<void>> = [];
  private bound: boolean;
  constructor(readonly name: string) {
    this.bound = name !== 'down';
  }
  async start(): Promise<void> {}
  async stop(): Promise<void> {}
  canSubmit(): boolean {
    return this.bound;
  }
  async submit(sms: OutboundSms): Promise<SubmitResult> {
    if (this.name !== 'up') {
      this.bound = false;
      return { ok: false, transient: true, elsewhere: true, error: 'no bound session' };
    }
    if (sms.text.includes('refuse')) return { ok: false, transient: false, error: 'refused', status: 18 };
    const id = `up-${sms.messageId}`;
    const status: DeliveryStatus = sms.text.includes('expire')
      ? DELIVERY.EXPIRED
      : sms.text.includes('fail')
        ? DELIVERY.NETWORK_FAILED
        : DELIVERY.DELIVERED;
    setTimeout(() => {
      for (const h of this.receipts) {
        void h({ carrierMessageId: id, status });
        if (sms.text.includes('ghost')) void h({ carrierMessageId: `ghost-${sms.messageId}`, status });
      }
    }, 20);
    return { ok: true, carrierMessageIds: [id] };
  }
  onReceipt(handler: (r: Receipt) => void | Promise<void>): void {
    this.receipts.push(handler);
  }
  onInbound(): void {}
  onLateAccept(): void {}
}

registerProtocol('metered', { create: (config) => new MeteredCarrier(config.name) });

/** The samples of /metrics as `name{labels} value` lines, by the text before the value. */
async function scrape(t: TestService): Promise<Map<string, number>> {
  const text = await (await fetch(`${t.httpUrl}/metrics`)).text();
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at).replace(/node="[^"]*",?/, ''), Number(line.slice(at + 1)));
  }
  return samples;
}

const targets = await storeTargets();
for (const target of targets) {
  describe(`metrics an operator alerts on (${target.name})`, () => {
    let t: TestService;
    let s: Sender;
    let receiver: PushReceiver;
    let skew = 0; // the service's clock runs this far ahead of the machine's

    before(async () => {
      receiver = await startPushReceiver(() => 500);
      const carriers = ['down', 'dropping', 'up'].map((name) => ({ name, protocol: 'metered' }));
      const routes = [
        { prefix: '972501', carrier: 'down,up' },
        { prefix: '972502', carrier: 'dropping,up' },
        { prefix: '', carrier: 'up' },
      ];
      t = await startTestService(target, {
        components: [
          carriersComponent({ setup: { carriers, routes }, settings: { pollMs: 20 }, config: loadConfig({}) }),
          createPusher(),
        ],
        env: { YONA_PUSH_ALLOW_PRIVATE: '1', YONA_PUSH_RETRY_BASE_MS: '50', YONA_PUSH_MAX_FAILURES: '2' },
        clock: () => Date.now() + skew,
      });
      settleOnClose(t);
      s = await newSender(t, 'metrics', 1000);
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
    });

    it('counts diverted messages, outcomes per carrier, unmatched receipts and the push queue', async () => {
      assert.equal((await s.call('push_url', { type: 'dlr', url: receiver.url })).status, 0);
      const sends: Array<[string, string]> = [
        ['0501000001', 'deliver (its first carrier is down)'],
        ['0502000001', 'deliver (its first carrier drops)'],
        ['0521000001', 'deliver ghost'],
        ['0521000002', 'expire'],
        ['0521000003', 'fail'],
        ['0521000004', 'refuse'],
      ];
      for (const [phone, message] of sends)
        assert.equal((await s.sms({ destinations: { phone: [{ $: { id: phone }, _: phone }] }, message })).status, 0);
      const phones = sends.map(([p]) => p);
      const final = await eventually(
        async () => {
          const report = await dlrById(s, phones);
          return phones.every((p) => !['-1', undefined].includes(report.get(p)?.status)) ? report : undefined;
        },
        20_000,
        'every message final',
      );
      assert.deepEqual(
        phones.map((p) => [final.get(p)?.status, final.get(p)?.carrier]),
        [
          ['102', 'up'],
          ['102', 'up'],
          ['102', 'up'],
          ['103', 'up'],
          ['4', 'up'],
          ['18', 'up'],
        ],
      );

      await eventually(
        async () => ((await scrape(t)).get('yona_push_registrations_disabled{}') ? true : undefined),
        20_000,
        'the push registration disabled',
      );
      // A receipt matching no message for over a minute is unmatched; those that came before their submit's
      // answer was recorded matched since.
      assert.equal((await scrape(t)).get('yona_receipts_unmatched{carrier="up"}'), undefined);
      skew = 61_000;
      const m = await scrape(t);
      // A down carrier's messages are diverted, not refused by it.
      assert.equal(m.get('yona_carrier_diverted_total{carrier="down"}'), 1);
      assert.equal(m.get('yona_carrier_diverted_total{carrier="dropping"}'), 1);
      assert.equal(m.get('yona_carrier_diverted_total{carrier="up"}'), 0);
      assert.equal(m.get('yona_carrier_submits_total{carrier="down",outcome="refused"}'), 0);
      assert.equal(m.get('yona_carrier_submits_total{carrier="dropping",outcome="refused"}'), 0);
      // Outcomes per carrier: the receipts', and the refusal that is final at submit.
      assert.equal(m.get('yona_delivery_outcomes_total{carrier="up",outcome="delivered"}'), 3);
      assert.equal(m.get('yona_delivery_outcomes_total{carrier="up",outcome="expired"}'), 1);
      assert.equal(m.get('yona_delivery_outcomes_total{carrier="up",outcome="failed"}'), 2);
      assert.equal(m.get('yona_receipts_unmatched{carrier="up"}'), 1);
      // Every status pushed to a receiver answering 500: failures, then the registration disabled with a backlog.
      assert.ok((m.get('yona_push_failures_total{}') ?? 0) >= 2, String(m.get('yona_push_failures_total{}')));
      assert.equal(m.get('yona_push_registrations_disabled{}'), 1);
      assert.ok((m.get('yona_push_backlog{}') ?? 0) >= 1, String(m.get('yona_push_backlog{}')));
    });
  });
}

// Failover between voice trunks, end to end over HTTP with sipp trunks on every store: a call trunk A answers
// 503 Service Unavailable before any ringing (the trunk's own failure) goes to trunk B on its route, which plays
// it (102, recorded with B); a call trunk A answers 486 Busy Here (the callee's answer) ends busy (110, recorded
// with A) and is never offered to the trunk after it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SipCarrier, SipTrunkConfig } from '../../src/carriers/sip/connector.ts';
import {
  dlrById,
  eventually,
  newSender,
  simCarrier,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { startSipp, voiceToolsAvailable, type SippPeer } from '../helpers/sipp.ts';
import { storeTargets } from '../helpers/stores.ts';

const available = voiceToolsAvailable();
const targets = available ? await storeTargets() : [];

/** The trunks: each one's sipp scenario. */
const TRUNKS = { 'down-a': 'unavailable', 'up-b': 'uas', 'busy-a': 'busy', 'spare-b': 'uas' } as const;

for (const target of targets) {
  describe(`failover between sipp voice trunks (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const peers = new Map<string, SippPeer>();

    before(async () => {
      for (const [name, scenario] of Object.entries(TRUNKS))
        peers.set(name, await startSipp(scenario, 1, 'udp', { timeoutS: 60 }));
      const trunks: SipTrunkConfig[] = Object.keys(TRUNKS).map((name) => ({
        protocol: 'sip',
        name,
        host: '127.0.0.1',
        port: peers.get(name)!.port,
        callerId: '035550000',
        localIp: '127.0.0.1',
        maxCalls: 2,
        callsPerSecond: 0,
        ringTimeoutMs: 5000,
      }));
      h = await startDelivery(target, {
        setup: (port) => ({
          carriers: [simCarrier(port), ...trunks],
          routes: [
            { prefix: '972521500001', carrier: 'down-a,up-b', channel: 'voice' },
            { prefix: '972521500002', carrier: 'busy-a,spare-b', channel: 'voice' },
          ],
        }),
      });
      s = await newSender(h.t, 'trunkfailover', 1000);
    });
    after(async () => {
      for (const peer of peers.values()) peer.stop();
      await h.close();
    });

    it('a 503 from trunk A sends the call to trunk B; a 486 is final and never tried elsewhere', {
      timeout: 60_000,
    }, async () => {
      const reply = await s.sms({
        destinations: {
          phone: [
            { $: { id: 'after-503' }, _: '0521500001' },
            { $: { id: 'busy-486' }, _: '0521500002' },
          ],
        },
        message: 'שלום, זו שיחת בדיקה',
        tts: { type: 4, repeat: 1 },
      });
      assert.equal(reply.status, 0, reply.message);
      const ids = ['after-503', 'busy-486'];
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, ids);
          return ids.every((id) => r.get(id) && r.get(id)!.status !== '-1') ? r : undefined;
        },
        50_000,
        'both call outcomes',
      );
      assert.equal(reports.get('after-503')!.status, '102', 'played by trunk B');
      assert.equal(reports.get('after-503')!.carrier, 'up-b');
      assert.equal(reports.get('busy-486')!.status, '110', 'busy');
      assert.equal(reports.get('busy-486')!.carrier, 'busy-a');
      const trunk = (name: string) => h.runtime().carriers.get(name) as unknown as SipCarrier;
      assert.deepEqual(
        trunk('down-a').outcomes.map((o) => [o.result, o.sipStatus]),
        [['refused', 503]],
        'trunk A refused it with 503',
      );
      assert.equal(trunk('spare-b').outcomes.length, 0, 'the 486 was not offered to the next trunk');
      for (const name of ['down-a', 'up-b', 'busy-a'])
        assert.equal(await peers.get(name)!.exit, 0, `sipp ${name} saw its call through: ${peers.get(name)!.stderr()}`);
    });
  });
}

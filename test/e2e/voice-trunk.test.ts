// Voice sends to sipp trunks, end to end over HTTP on every store: one trunk per way a real trunk answers, each
// call's outcome read back from `dlr` and its charge from the balance and the ledger. A 401 sent twice, then 200:
// played in full (102, paid); a 200 sent twice: the same ACK for both; a PCMU-only callee: played in PCMU, its
// first packet soon after the 200; 486 busy (110, paid); 404 rejected (108, paid) (a 503 from the trunk goes
// to the next trunk of the route: voice-failover.test.ts); ringing past the ring timeout, CANCEL answered with 487 or not: no answer (111, paid); an
// answer with no usable codec (114, refunded); a callee hanging up early (113, paid, its call_seconds); a request
// that cannot be parsed answered 400 while the call plays on (102). A dry run shows the length the calls are
// priced on: the rendered speech times repeat, with the pause.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SipCarrier, SipTrunkConfig } from '../../src/carriers/sip/connector.ts';
import { pcmSeconds } from '../../src/speech/g711.ts';
import { sharedSpeech } from '../../src/speech/speech.ts';
import { callCredits } from '../../src/domain/pricing.ts';
import { callSeconds } from '../../src/domain/voice.ts';
import {
  dlrById,
  eventually,
  newSender,
  simCarrier,
  startDelivery,
  type DeliveryHarness,
  type Sender,
} from '../delivery/delivery-helpers.ts';
import { startSipp, voiceToolsAvailable, type SippPeer, type SippScenario } from '../helpers/sipp.ts';
import { storeTargets } from '../helpers/stores.ts';

const available = voiceToolsAvailable();
const targets = available ? await storeTargets() : [];
const TEXT = 'שלום, התור שלך נקבע ליום ראשון בשעה עשר בבוקר';

/** Each case: its sipp scenario, the status its call ends in, and whether it is paid. */
const CASES: Array<{ id: string; scenario: SippScenario; status: string; paid: boolean }> = [
  { id: 'auth-twice', scenario: 'auth-twice', status: '102', paid: true },
  { id: 'ack-again', scenario: 'ack-retransmit', status: '102', paid: true },
  { id: 'pcmu', scenario: 'pcmu-only', status: '102', paid: true },
  { id: 'busy', scenario: 'busy', status: '110', paid: true },
  { id: 'not-found', scenario: 'not-found', status: '108', paid: true },
  { id: 'no-answer', scenario: 'ring', status: '111', paid: true },
  { id: 'no-487', scenario: 'cancel-no-487', status: '111', paid: true },
  { id: 'no-codec', scenario: 'no-codec', status: '114', paid: false },
  { id: 'hangup', scenario: 'hangup', status: '113', paid: true },
  { id: 'malformed', scenario: 'malformed', status: '102', paid: true },
];

for (const target of targets) {
  describe(`voice sends to sipp trunks (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    const peers = new Map<string, SippPeer>();

    before(async () => {
      for (const c of CASES) peers.set(c.id, await startSipp(c.scenario, 1, 'udp', { timeoutS: 120 }));
      const trunks: SipTrunkConfig[] = CASES.map((c) => ({
        protocol: 'sip',
        name: c.id,
        host: '127.0.0.1',
        port: peers.get(c.id)!.port,
        callerId: '035550000',
        localIp: '127.0.0.1',
        maxCalls: 2,
        callsPerSecond: 0,
        ringTimeoutMs: 1500,
        ...(c.scenario === 'auth-twice' ? { username: 'trunkuser', password: 'trunkpass' } : {}),
      }));
      h = await startDelivery(target, {
        setup: (port) => ({
          carriers: [simCarrier(port), ...trunks],
          routes: CASES.map((c, i) => ({ prefix: `97252140${String(i).padStart(4, '0')}`, carrier: c.id })),
        }),
      });
      s = await newSender(h.t, 'trunkcaller', 1000);
    });
    after(async () => {
      for (const peer of peers.values()) peer.stop();
      await h.close();
    });

    it('prices the calls in a dry run on the rendered speech, times repeat, with the pause', async () => {
      const once = pcmSeconds(await sharedSpeech().render({ text: TEXT, voice: 'ymMale', rate: 0 }));
      const reply = await s.sms(
        { destinations: { phone: ['0521400000'] }, message: TEXT, tts: { type: 4, repeat: 2 } },
        { dryRun: true },
      );
      const seconds = callSeconds(once, 2);
      assert.deepEqual(
        [reply.status, reply.calls, reply.call_seconds, reply.credits],
        [0, 1, Math.ceil(seconds), callCredits(seconds, 2)],
      );
    });

    it('ends each call in the status of its trunk answer, paid or refunded by its rule', {
      timeout: 90_000,
    }, async () => {
      const before = (await s.balance()).credits;
      const reply = await s.sms({
        destinations: {
          phone: CASES.map((c, i) => ({ $: { id: c.id }, _: `052140${String(i).padStart(4, '0')}` })),
        },
        message: TEXT,
        tts: { type: 4, repeat: 2 },
      });
      assert.equal(reply.status, 0, reply.message);
      assert.equal(reply.calls, CASES.length);
      const perCall = reply.credits / CASES.length;
      const ids = CASES.map((c) => c.id);
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, ids);
          return ids.every((id) => r.get(id) && r.get(id)!.status !== '-1') ? r : undefined;
        },
        80_000,
        'every call outcome',
      );
      assert.deepEqual(
        Object.fromEntries(ids.map((id) => [id, reports.get(id)!.status])),
        Object.fromEntries(CASES.map((c) => [c.id, c.status])),
      );
      const full = reports.get('auth-twice')!.call_seconds;
      assert.ok(Number(full) >= 5, `a call played in full: ${full} s`);
      const cut = Number(reports.get('hangup')!.call_seconds);
      assert.ok(cut >= 1 && cut <= 3 && cut < Number(full), `the early hang-up played ${cut} s of ${full}`);
      assert.equal(reports.get('busy')!.call_seconds, undefined);
      const refunded = CASES.filter((c) => !c.paid).length;
      await eventually(
        async () => ((await s.balance()).credits === before - perCall * (CASES.length - refunded) ? true : undefined),
        10_000,
        'the refunds of the calls the trunk did not carry',
      );
      const refunds = await h.t.service.store.db
        .selectFrom('ledger_entries')
        .select(['amount', 'reason'])
        .where('reason', 'like', 'refund: the trunk did not carry%')
        .execute();
      assert.deepEqual(
        refunds.map((r) => Number(r.amount)),
        Array(refunded).fill(perCall),
      );
      for (const c of CASES)
        assert.equal(await peers.get(c.id)!.exit, 0, `sipp saw the ${c.id} call through: ${peers.get(c.id)!.stderr()}`);
      const pcmu = (h.runtime().carriers.get('pcmu') as unknown as SipCarrier).outcomes[0];
      assert.equal(pcmu.media!.law, 'pcmu');
      assert.ok(pcmu.media!.firstPacketMs! < 50, `first RTP packet ${pcmu.media!.firstPacketMs} ms after the 200 OK`);
    });
  });
}

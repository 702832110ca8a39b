// The SIP outcome table of docs/voice.md, row by row, end to end over HTTP with sipp trunks on every store. Each
// row is a trunk (sipp) answering the INVITE with one final response, before any ringing or after a 180, routed
// `<trunk>,spare` where the spare trunk is the bundled call simulator. Each call is checked for its delivery
// status, whether it went to the next trunk (the spare's call and the report's carrier), and its charge (the
// message's cost after its outcome: the full call price when paid, 0 when refunded), against figures written here.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CallSimulator } from '../../src/carriers/simulator/index.ts';
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

/**
 * One row: the trunk's final response, whether a 180 Ringing came first, and what the table says: `next` (the
 * call goes to the next trunk, which answers it: 102, paid) or the status it ends in and whether it is paid.
 */
interface Row {
  status: number;
  reason: string;
  ringing: boolean;
  expect: 'next' | { status: string; paid: boolean };
}

const final = (status: string, paid: boolean) => ({ status, paid });
const ROWS: Row[] = [
  // Before any 180/183: the trunk's own failure or refusal of us goes to the next trunk.
  { status: 302, reason: 'Moved Temporarily', ringing: false, expect: 'next' },
  { status: 401, reason: 'Unauthorized', ringing: false, expect: 'next' },
  { status: 403, reason: 'Forbidden', ringing: false, expect: 'next' },
  { status: 407, reason: 'Proxy Authentication Required', ringing: false, expect: 'next' },
  { status: 408, reason: 'Request Timeout', ringing: false, expect: 'next' },
  { status: 500, reason: 'Server Internal Error', ringing: false, expect: 'next' },
  { status: 503, reason: 'Service Unavailable', ringing: false, expect: 'next' },
  { status: 504, reason: 'Server Time-out', ringing: false, expect: 'next' },
  // The callee's side's answer is final for the message, ringing or not.
  { status: 480, reason: 'Temporarily Unavailable', ringing: false, expect: final('111', true) },
  { status: 484, reason: 'Address Incomplete', ringing: false, expect: final('108', true) },
  { status: 488, reason: 'Not Acceptable Here', ringing: false, expect: final('108', true) },
  { status: 600, reason: 'Busy Everywhere', ringing: false, expect: final('110', true) },
  { status: 603, reason: 'Decline', ringing: false, expect: final('112', false) },
  { status: 604, reason: 'Does Not Exist Anywhere', ringing: false, expect: final('112', false) },
  // After a 180: the trunk carried the call, so nothing goes to the next trunk.
  { status: 302, reason: 'Moved Temporarily', ringing: true, expect: final('112', false) },
  { status: 401, reason: 'Unauthorized', ringing: true, expect: final('108', true) },
  { status: 403, reason: 'Forbidden', ringing: true, expect: final('108', true) },
  { status: 407, reason: 'Proxy Authentication Required', ringing: true, expect: final('108', true) },
  { status: 408, reason: 'Request Timeout', ringing: true, expect: final('111', true) },
  { status: 500, reason: 'Server Internal Error', ringing: true, expect: final('112', false) },
  { status: 503, reason: 'Service Unavailable', ringing: true, expect: final('112', false) },
  { status: 600, reason: 'Busy Everywhere', ringing: true, expect: final('110', true) },
];

const idOf = (row: Row) => `${row.ringing ? 'ring' : 'at-once'}-${row.status}`;
const phoneOf = (i: number) => `052160${String(i).padStart(4, '0')}`;

for (const target of targets) {
  describe(`the SIP outcome table against sipp trunks (${target.name})`, () => {
    let h: DeliveryHarness;
    let s: Sender;
    let spare: CallSimulator;
    const peers = new Map<string, SippPeer>();

    before(async () => {
      for (const row of ROWS)
        peers.set(
          idOf(row),
          await startSipp(row.ringing ? 'ring-final' : 'final', 1, 'udp', {
            timeoutS: 60,
            fill: { status: String(row.status), reason: row.reason },
          }),
        );
      spare = new CallSimulator();
      const sparePort = await spare.start();
      const trunk = (name: string, port: number): SipTrunkConfig => ({
        protocol: 'sip',
        name,
        host: '127.0.0.1',
        port,
        callerId: '035550000',
        localIp: '127.0.0.1',
        maxCalls: 4,
        callsPerSecond: 0,
        ringTimeoutMs: 5000,
      });
      h = await startDelivery(target, {
        setup: (port) => ({
          carriers: [
            simCarrier(port),
            trunk('spare', sparePort),
            ...ROWS.map((row) => trunk(idOf(row), peers.get(idOf(row))!.port)),
          ],
          routes: ROWS.map((row, i) => ({
            prefix: `972${phoneOf(i).slice(1)}`,
            carrier: `${idOf(row)},spare`,
            channel: 'voice' as const,
          })),
        }),
      });
      s = await newSender(h.t, 'outcometable', 1000);
    });
    after(async () => {
      for (const peer of peers.values()) peer.stop();
      await spare?.stop();
      await h?.close();
    });

    it('ends each call in its row: status, paid or refunded, next trunk tried or not', {
      timeout: 60_000,
    }, async () => {
      const reply = await s.sms({
        destinations: { phone: ROWS.map((row, i) => ({ $: { id: idOf(row) }, _: phoneOf(i) })) },
        message: 'שלום',
        tts: { type: 4, repeat: 1 },
      });
      assert.equal(reply.status, 0, reply.message);
      const perCall = reply.credits / ROWS.length;
      const ids = ROWS.map(idOf);
      const reports = await eventually(
        async () => {
          const r = await dlrById(s, ids);
          return ids.every((id) => r.get(id) && r.get(id)!.status !== '-1') ? r : undefined;
        },
        50_000,
        'every call outcome',
      );
      const costs = async () =>
        new Map(
          (
            await h.t.service.store.db
              .selectFrom('messages')
              .select(['external_id', 'cost_credits'])
              .where('external_id', 'in', ids)
              .execute()
          ).map((m) => [m.external_id, Number(m.cost_credits)]),
        );
      const expected = (row: Row) =>
        row.expect === 'next'
          ? { status: '102', carrier: 'spare', cost: perCall, spareCalls: 1 }
          : { status: row.expect.status, carrier: idOf(row), cost: row.expect.paid ? perCall : 0, spareCalls: 0 };
      const seen = async () => {
        const cost = await costs();
        return ROWS.map((row, i) => ({
          row: idOf(row),
          status: reports.get(idOf(row))!.status,
          carrier: reports.get(idOf(row))!.carrier,
          cost: cost.get(idOf(row)),
          spareCalls: spare.calls({ to: `972${phoneOf(i).slice(1)}` }).length,
        }));
      };
      const want = ROWS.map((row) => ({ row: idOf(row), ...expected(row) }));
      assert.deepEqual(await seen(), want);
      for (const row of ROWS) {
        const outcomes = (h.runtime().carriers.get(idOf(row)) as unknown as SipCarrier).outcomes;
        assert.deepEqual(
          outcomes.map((o) => o.sipStatus),
          [row.status],
          `${idOf(row)}: one call on its trunk`,
        );
        assert.equal(await peers.get(idOf(row))!.exit, 0, `sipp ${idOf(row)}: ${peers.get(idOf(row))!.stderr()}`);
      }
    });
  });
}

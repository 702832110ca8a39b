// A protocol's metrics and health come through its registry entry: the SIP entry's hooks give /healthz the voice
// role's `trunks` (each trunk's last OPTIONS check) and /metrics the call, speech and RTP series per trunk, with
// the names and labels they have always had, while delivery names no protocol.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import type { SipTrunkConfig } from '../../src/carriers/sip/connector.ts';
import { storeTargets } from '../helpers/stores.ts';
import { eventually, simCarrier, startDelivery, type DeliveryHarness } from '../delivery/delivery-helpers.ts';

describe('metrics and health a protocol contributes through the registry', () => {
  let h: DeliveryHarness;
  // A UDP socket that answers nothing: the trunk's OPTIONS check ends as down.
  const silent = createSocket('udp4');

  before(async () => {
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', () => resolve()));
    const trunk: SipTrunkConfig = {
      protocol: 'sip',
      name: 'trunk-q',
      host: '127.0.0.1',
      port: silent.address().port,
      callerId: '035550000',
      localIp: '127.0.0.1',
      maxCalls: 2,
      callsPerSecond: 0,
      ringTimeoutMs: 5000,
    };
    h = await startDelivery((await storeTargets())[0], {
      setup: (port) => ({ carriers: [simCarrier(port), trunk], routes: [] }),
    });
  });
  after(async () => {
    await h.close();
    silent.close();
  });

  it("shows each SIP trunk under the voice role's trunks in /healthz, and no other carrier", async () => {
    const res = await fetch(`${h.t.httpUrl}/healthz`);
    const body = (await res.json()) as { roles: Record<string, { trunks?: Record<string, unknown> }> };
    assert.deepEqual(Object.keys(body.roles.voice?.trunks ?? {}), ['trunk-q'], JSON.stringify(body));
    assert.equal(body.roles.dispatcher?.trunks, undefined);
  });

  it('exports the call, speech and RTP series with their names and labels', async () => {
    const text = await eventually(async () => {
      const t = await (await fetch(`${h.t.httpUrl}/metrics`)).text();
      return t.includes('yona_calls_in_progress{') ? t : undefined;
    });
    const node = h.t.service.node.name;
    assert.match(text, new RegExp(`^yona_calls_in_progress\\{node="${node}",trunk="trunk-q"\\} 0$`, 'm'));
    assert.match(text, /^# TYPE yona_call_outcomes_total counter$/m);
    assert.match(text, new RegExp(`^yona_speech_renders_total\\{node="${node}",source="rendered"\\} \\d+$`, 'm'));
    assert.match(text, new RegExp(`^yona_speech_render_seconds_total\\{node="${node}"\\} `, 'm'));
    assert.match(text, new RegExp(`^yona_rtp_late_ticks_total\\{node="${node}"\\} \\d+$`, 'm'));
    assert.doesNotMatch(text, /trunk="sim"/);
  });
});

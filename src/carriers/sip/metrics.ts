// What the SIP protocol contributes to a node's /metrics and /healthz through its registry entry: calls in progress
// per trunk, call outcomes by result and SIP status, speech rendering (renders, cache hits, seconds spent), RTP
// packets the media thread sent late (their successors rescheduled, never bunched), and each trunk's last OPTIONS
// check. All read at scrape time.
import client from 'prom-client';
import { sharedSpeech } from '../../speech/speech.ts';
import type { Carrier, TrunkHealth } from '../types.ts';
import { SipCarrier } from './connector.ts';
import { mediaStats } from './media.ts';

const trunksOf = (carriers: Carrier[]) => carriers.filter((c): c is SipCarrier => c instanceof SipCarrier);

/** The last OPTIONS check of each trunk this node runs, by name, as /healthz shows them beside the voice role. */
export function sipHealth(carriers: Carrier[]): { trunks: Record<string, TrunkHealth> } {
  return { trunks: Object.fromEntries(trunksOf(carriers).map((c) => [c.name, c.health()])) };
}

/** Registers the voice metrics once on `registry`; `carriers` gives this node's SIP carriers at scrape time. */
export function registerSipMetrics(registry: client.Registry, node: string, carriers: () => Carrier[]): void {
  if (registry.getSingleMetric('yona_calls_in_progress')) return;
  const trunks = () => trunksOf(carriers());
  new client.Gauge({
    name: 'yona_calls_in_progress',
    help: 'Voice calls up now on this node, per trunk',
    labelNames: ['node', 'trunk'],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of trunks()) this.set({ node, trunk: t.name }, t.activeCalls());
    },
  });
  new client.Counter({
    name: 'yona_call_outcomes_total',
    help: 'Voice calls ended on this node, per trunk, by result and the SIP status of the INVITE (none: no answer at all)',
    labelNames: ['node', 'trunk', 'result', 'sip_status'],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of trunks())
        for (const c of t.counts.values())
          this.inc({ node, trunk: t.name, result: c.result, sip_status: c.sipStatus }, c.count);
    },
  });
  new client.Counter({
    name: 'yona_speech_renders_total',
    help: 'Speech requests by where the audio came from: rendered (espeak-ng and sox) or the cache',
    labelNames: ['node', 'source'],
    registers: [registry],
    collect() {
      const { stats } = sharedSpeech();
      this.reset();
      this.inc({ node, source: 'rendered' }, stats.rendered);
      this.inc({ node, source: 'cache' }, stats.cached);
    },
  });
  new client.Counter({
    name: 'yona_speech_render_seconds_total',
    help: 'Seconds spent rendering speech (divide by yona_speech_renders_total{source="rendered"} for the mean)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ node }, sharedSpeech().stats.renderSeconds);
    },
  });
  new client.Counter({
    name: 'yona_rtp_late_ticks_total',
    help: 'RTP packets the media thread sent over 5 ms late (the next packet of the stream moved, not bunched)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.reset();
      this.inc({ node }, mediaStats.lateTicks);
    },
  });
}

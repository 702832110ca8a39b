// `npm run bench -- voice [--calls N] [--seconds N] [--connections N]`: on the embedded store, in one process:
// 1. speech render time of a ~10 s message, uncached (espeak-ng and sox) and from the cache;
// 2. the accept rate of single-recipient `sms` (load from a second process) without calls;
// 3. one tts send of type 4 to N phones (100) through a trunk allowing N calls at once, to the bundled call
//    simulator (in a process of its own, so the arrival times are the network's, not a busy loop's), with the same
//    accept load running in this process while the calls play: the accept rate beside the calls, and the RTP as
//    the callee received it: gaps between packets per stream (target p99 within 20 +/- 5 ms, none over 60 ms),
//    the media thread's late ticks;
// 4. the accept rate of a campaign of tts sends (single-recipient sms with a tts block, one text: rendered once).
// Prints one JSON line.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { SmscSimulator, type ReceivedCall } from '../src/carriers/simulator/index.ts';
import type { SipCarrier, SipTrunkConfig } from '../src/carriers/sip/connector.ts';
import { pcmSeconds } from '../src/speech/g711.ts';
import { mediaStats } from '../src/carriers/sip/media.ts';
import { EspeakEngine, sharedSpeech } from '../src/speech/speech.ts';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { runLoad } from './lib/load.ts';
import { startBenchService } from './lib/service.ts';
import { simCarrier } from './lib/smsc-sim.ts';
import { loadConfig } from '../src/config.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const calls = Number(arg('calls', '100'));
const seconds = Number(arg('seconds', '8'));
const connections = Number(arg('connections', '20'));
const TEXT = 'שלום, זוהי הודעה קולית ממערכת יונה. התור שלך נקבע ליום ראשון בשעה עשר בבוקר, נא להגיע עשר דקות לפני.';
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

const speech = { text: TEXT, voice: 'ymMale' as const, rate: 0 };
let started = performance.now();
const audio = await new EspeakEngine().render(speech);
const renderMs = performance.now() - started;
await sharedSpeech().render(speech);
started = performance.now();
await sharedSpeech().render(speech);
const cachedRenderMs = performance.now() - started;

const smsc = new SmscSimulator({ systemId: 'yona', password: 'bench', receiptDelayMs: 200 });
const smscPort = await smsc.start(0);
const callSim = fork(fileURLToPath(new URL('./lib/call-sim-child.ts', import.meta.url)), [], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ask = <T>(message: string, key: string) =>
  new Promise<T>((resolve) => {
    const on = (m: Record<string, T>) => {
      if (!(key in m)) return;
      callSim.off('message', on);
      resolve(m[key]);
    };
    callSim.on('message', on);
    if (message) callSim.send(message);
  });
const sipPort = await ask<number>('', 'port');
const trunk: SipTrunkConfig = {
  protocol: 'sip',
  name: 'voice',
  host: '127.0.0.1',
  port: sipPort,
  callerId: '035550000',
  localIp: '127.0.0.1',
  maxCalls: calls,
  callsPerSecond: 0,
  ringTimeoutMs: 30_000,
};
const component = carriersComponent({
  config: loadConfig({}),
  setup: { carriers: [simCarrier(smscPort), trunk], routes: [] },
});
const bench = await startBenchService('sqlite', [component], { YONA_CALL_CREDITS_PER_MINUTE: '1' });
try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', '100000000');
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  await bench.admin('verify-sender', 'bench', 'Yona');
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const sms = (extra: Record<string, unknown>, phones: string[] = ['0521234567']) =>
    JSON.stringify({
      sms: { user: { username: 'bench' }, source: 'Yona', message: TEXT, destinations: { phone: phones }, ...extra },
    });
  const accept = async (body: string) =>
    (await runLoad({ url: `${bench.httpUrl}/api`, body, headers, connections, durationSeconds: seconds }))
      .requests_per_s;

  await runLoad({ url: `${bench.httpUrl}/api`, body: sms({}), headers, connections, durationSeconds: 2 }); // warm-up
  const acceptAlone = await accept(sms({}));

  const carrier = component.runtime()!.carriers.get('voice') as SipCarrier;
  const phones = Array.from({ length: calls }, (_, i) => `05${String(30_000_000 + i * 10 + 9).padStart(8, '0')}`);
  const res = await request(`${bench.httpUrl}/api`, {
    method: 'POST',
    headers,
    body: sms({ tts: { type: 4, repeat: 1 } }, phones),
  });
  const reply = (await res.body.json()) as { status: number; message: string };
  if (reply.status !== 0) throw new Error(`the voice send was refused: ${reply.status} ${reply.message}`);
  const lateBefore = mediaStats.lateTicks;
  while (carrier.activeCalls() < calls) await new Promise((r) => setTimeout(r, 20));
  let most = 0;
  const watch = setInterval(() => (most = Math.max(most, carrier.activeCalls())), 50);
  const acceptBeside = await accept(sms({}));
  const deadline = Date.now() + 300_000;
  while (carrier.outcomes.length < calls && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  clearInterval(watch);
  const received = (await ask<ReceivedCall[]>('calls', 'calls')).filter((c) => c.packets > 0);
  const perStream = received.map((c) => {
    const g = [...c.gaps].sort((a, b) => a - b);
    return { p50: percentile(g, 50), p99: percentile(g, 99), max: g.at(-1)! };
  });
  const all = received.flatMap((c) => c.gaps).sort((a, b) => a - b);
  const worstP99 = Math.max(...perStream.map((s) => s.p99));
  const worstMax = Math.max(...perStream.map((s) => s.max));
  const firstPackets = carrier.outcomes.flatMap((o) =>
    o.media?.firstPacketMs !== undefined ? [o.media.firstPacketMs] : [],
  );

  const acceptTts = await accept(sms({ tts: { type: 4, repeat: 1 } }));
  const met = Math.abs(worstP99 - 20) <= 5 && worstMax <= 60;
  console.log(
    JSON.stringify({
      bench: 'voice',
      date: new Date().toISOString().slice(0, 10),
      concurrent_calls: most,
      calls_answered: carrier.outcomes.filter((o) => o.result === 'answered').length,
      audio_seconds_per_call: round(pcmSeconds(audio), 1),
      rtp_gap_ms: {
        all_packets: { p50: round(percentile(all, 50)), p99: round(percentile(all, 99)), max: round(all.at(-1)!) },
        worst_stream: { p99: round(worstP99), max: round(worstMax) },
        median_stream_p99: round(
          percentile(
            perStream.map((s) => s.p99).sort((a, b) => a - b),
            50,
          ),
        ),
      },
      rtp_late_ticks: mediaStats.lateTicks - lateBefore,
      first_packet_after_200_ms: {
        p50: round(
          percentile(
            [...firstPackets].sort((a, b) => a - b),
            50,
          ),
        ),
        max: round(Math.max(...firstPackets)),
      },
      accept_per_s: {
        without_calls: Math.round(acceptAlone),
        beside_calls: Math.round(acceptBeside),
        tts_sends: Math.round(acceptTts),
      },
      render_ms: { uncached: Math.round(renderMs), cached: round(cachedRenderMs, 3) },
      target: 'gap p99 within 20 +/- 5 ms and max <= 60 ms per stream, while the accept load runs',
      met,
    }),
  );
} finally {
  await bench.close();
  callSim.send('stop');
  await smsc.stop();
}

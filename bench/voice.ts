// `npm run bench -- voice [--calls N] [--concurrent N]`: on the embedded store, one HTTP sms with a tts block of
// type 4 to N phones (200) whose text speaks for about 10 s, placed over SIP/RTP to the bundled call simulator
// (in this process, so its RTP reception is counted in the CPU) through a trunk allowing `concurrent` calls (100).
// Prints one JSON line: calls a second from acceptance to the last outcome, RTP pacing lateness p50/p99/max
// (target p99 under 5 ms at 100 concurrent calls), the process CPU per concurrent call, and the time to render
// the message (espeak-ng and sox, uncached).
import { request } from 'undici';
import { CallSimulator, SmscSimulator } from '../src/carriers/simulator/index.ts';
import type { SipCarrier, SipTrunkConfig } from '../src/carriers/sip/connector.ts';
import { EspeakEngine } from '../src/carriers/sip/speech.ts';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { startBenchService } from './lib/service.ts';
import { simCarrier } from './lib/smsc-sim.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const calls = Number(arg('calls', '200'));
const concurrent = Number(arg('concurrent', '100'));
const TEXT = 'שלום, זוהי הודעה קולית ממערכת יונה. התור שלך נקבע ליום ראשון בשעה עשר בבוקר, נא להגיע עשר דקות לפני.';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

const renderStarted = performance.now();
const audio = await new EspeakEngine().render({ text: TEXT, voice: 'ymMale', rate: 0 });
const renderMs = performance.now() - renderStarted;

const smsc = new SmscSimulator({ systemId: 'yona', password: 'bench', receiptDelayMs: 200 });
const smscPort = await smsc.start(0);
const callSim = new CallSimulator();
const sipPort = await callSim.start(0);
const trunk: SipTrunkConfig = {
  protocol: 'sip',
  name: 'voice',
  host: '127.0.0.1',
  port: sipPort,
  callerId: '035550000',
  localIp: '127.0.0.1',
  maxCalls: concurrent,
  callsPerSecond: 0,
  ringTimeoutMs: 30_000,
};
const component = carriersComponent({ env: {}, setup: { carriers: [simCarrier(smscPort), trunk], routes: [] } });
const bench = await startBenchService('sqlite', [component], { YONA_CALL_CREDITS_PER_MINUTE: '1' });
try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', String(calls * 10));
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  await bench.admin('verify-sender', 'bench', 'Yona');
  const phones = Array.from({ length: calls }, (_, i) => `05${String(30_000_000 + i * 10 + 9).padStart(8, '0')}`);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const res = await request(`${bench.httpUrl}/api`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      sms: {
        user: { username: 'bench' },
        source: 'Yona',
        message: TEXT,
        destinations: { phone: phones },
        tts: { type: 4, repeat: 1 },
      },
    }),
  });
  const reply = (await res.body.json()) as { status: number; message: string };
  if (reply.status !== 0) throw new Error(`the voice send was refused: ${reply.status} ${reply.message}`);
  const carrier = component.runtime()!.carriers.get('voice') as SipCarrier;
  let most = 0;
  const deadline = Date.now() + 600_000;
  while (carrier.outcomes.length < calls && Date.now() < deadline) {
    most = Math.max(most, carrier.activeCalls());
    await new Promise((r) => setTimeout(r, 50));
  }
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const lateness = carrier.outcomes.flatMap((o) => o.media?.lateness ?? []).sort((a, b) => a - b);
  const answered = carrier.outcomes.filter((o) => o.result === 'answered');
  const callSeconds = answered.reduce((n, o) => n + (o.media?.durationMs ?? 0) / 1000, 0);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const p99 = percentile(lateness, 99);
  console.log(
    JSON.stringify({
      bench: 'voice',
      date: new Date().toISOString().slice(0, 10),
      calls,
      answered: answered.length,
      concurrent_limit: concurrent,
      concurrent_reached: most,
      audio_seconds_per_call: Math.round((audio.length / 16000) * 10) / 10,
      calls_per_second: Math.round((calls / elapsedS) * 100) / 100,
      rtp_packets: lateness.length,
      rtp_lateness_ms: {
        p50: Math.round(percentile(lateness, 50) * 100) / 100,
        p99: Math.round(p99 * 100) / 100,
        max: Math.round(lateness.at(-1)! * 100) / 100,
      },
      cpu_percent_per_concurrent_call: Math.round((cpuS / (callSeconds / elapsedS) / elapsedS) * 100 * 1000) / 1000,
      render_ms: Math.round(renderMs),
      target_rtp_p99_ms: 5,
      met: p99 < 5,
    }),
  );
} finally {
  await bench.close();
  await callSim.stop();
  await smsc.stop();
}

// `npm run bench -- otp [--recipients N] [--codes N] [--gap-ms MS]`: on the embedded store, with the bundled
// SMSC simulator in the process (as `npm start` runs it), one HTTP sms to N recipients (100,000) starts
// dispatching; while it does, one-time codes are requested over HTTP one after another (50, every 100 ms), and
// each code's latency is the time from its send_otp request to the simulator receiving its submit_sm.
// Prints one JSON line: p50, p99 and max of that latency (target: p99 under 1 s), and how much of the campaign
// was still to be submitted when the last code went out (so the codes were measured behind a busy dispatcher).
import { request } from 'undici';
import { SmscSimulator } from '../src/carriers/simulator/index.ts';
import { carriersComponent } from '../src/delivery/carriers.ts';
import { startBenchService } from './lib/service.ts';
import { simCarrier } from './lib/smsc-sim.ts';
import { loadConfig } from '../src/config.ts';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const recipients = Number(arg('recipients', '100000'));
const codes = Number(arg('codes', '50'));
const gapMs = Number(arg('gap-ms', '100'));
const CAMPAIGN_TEXT = 'campaign traffic';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const simulator = new SmscSimulator({
  systemId: 'yona',
  password: 'bench',
  receiptDelayMs: 200,
  maxLog: recipients + codes + 10,
});
const port = await simulator.start(0);
const component = carriersComponent({ config: loadConfig({}), setup: { carriers: [simCarrier(port)], routes: [] } });
const bench = await startBenchService('sqlite', [component], { YONA_OTP_ACCOUNT_HOURLY: '0' });
try {
  await bench.admin('create-account', 'bench', '--password', 'bench-password', '--credits', String(recipients + codes));
  const token = (await bench.admin('create-token', 'bench')).at(-1)!;
  await bench.admin('verify-sender', 'bench', 'Yona');
  const api = async (root: string, doc: Record<string, unknown>) => {
    const res = await request(`${bench.httpUrl}/api`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ [root]: { user: { username: 'bench' }, ...doc } }),
    });
    return (await res.body.json()) as { status: number; message: string };
  };
  // Numbers ending in 9: no simulator outcome rule applies, so every one is delivered with a receipt.
  const phones = Array.from({ length: recipients }, (_, i) => `05${String(20_000_000 + i * 10 + 9).padStart(8, '0')}`);
  const campaign = await api('sms', { source: 'Yona', message: CAMPAIGN_TEXT, destinations: { phone: phones } });
  if (campaign.status !== 0) throw new Error(`the campaign was refused: ${campaign.status} ${campaign.message}`);
  while (simulator.stats().messagesReceived < Math.min(1000, recipients)) await new Promise((r) => setTimeout(r, 10));

  const requested = new Map<string, number>();
  const campaignAtCode: number[] = [];
  for (let i = 0; i < codes; i++) {
    const national = `0549${String(i).padStart(6, '0')}`;
    requested.set(`972${national.slice(1)}`, Date.now());
    campaignAtCode.push(simulator.stats().messagesReceived);
    const reply = await api('send_otp', { source: 'Yona', phone: national });
    if (reply.status !== 0) throw new Error(`send_otp was refused: ${reply.status} ${reply.message}`);
    await new Promise((r) => setTimeout(r, gapMs));
  }
  const deadline = Date.now() + 600_000;
  while (simulator.stats().messagesReceived < recipients + codes && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 50));

  const received = new Map(
    simulator
      .messages()
      .filter((m) => m.text !== CAMPAIGN_TEXT)
      .map((m) => [m.destination, m.receivedAt]),
  );
  const latencies = [...requested]
    .map(([phone, at]) => {
      const got = received.get(phone);
      if (got === undefined) throw new Error(`the code to ${phone} never reached the simulator`);
      return got - at;
    })
    .sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  console.log(
    JSON.stringify({
      bench: 'otp',
      store: 'sqlite',
      date: new Date().toISOString().slice(0, 10),
      campaign_recipients: recipients,
      codes,
      code_to_submit_ms: { p50: percentile(latencies, 50), p99, max: latencies.at(-1) },
      campaign_left_at_first_code: recipients - campaignAtCode[0],
      campaign_left_at_last_code: recipients - campaignAtCode.at(-1)!,
      target_p99_ms: 1000,
      met: p99 < 1000,
    }),
  );
} finally {
  await bench.close();
  await simulator.stop();
}

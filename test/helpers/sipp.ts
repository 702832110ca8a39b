// sipp (Debian's sip-tester) as an independent SIP peer for the voice tests, and the check that the voice
// tools are installed: their tests skip with a notice without them, and fail instead when REQUIRE_VOICE=1 (CI).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOOLS = ['sipp', 'espeak-ng', 'sox'];

/** Whether sipp, espeak-ng and sox are on the PATH; throws when they are not and REQUIRE_VOICE=1. */
export function voiceToolsAvailable(): boolean {
  const missing = TOOLS.filter((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status !== 0);
  if (missing.length === 0) return true;
  if (process.env.REQUIRE_VOICE === '1')
    throw new Error(
      `REQUIRE_VOICE=1 but ${missing.join(', ')} not installed (apt-get install sip-tester espeak-ng sox)`,
    );
  console.log(`# NOTICE: ${missing.join(', ')} not installed; voice tests skipped`);
  return false;
}

export interface SippPeer {
  port: number;
  /** What sipp wrote on stderr (why a call failed). */
  stderr(): string;
  /** Resolves with sipp's exit code once its calls are done (0: every call went as the scenario says). */
  exit: Promise<number>;
  stop(): void;
}

/** The scenarios of test/fixtures/sipp (each file says what its callee does). */
export type SippScenario =
  | 'busy'
  | 'decline'
  | 'ring'
  | 'auth'
  | 'auth-twice'
  | 'ack-retransmit'
  | 'pcmu-only'
  | 'no-codec'
  | 'not-found'
  | 'unavailable'
  | 'cancel-no-487'
  | 'hangup'
  | 'malformed'
  | 'final'
  | 'ring-final';

/**
 * Starts sipp as a UAS on loopback: its built-in `uas` scenario (answers, echoes RTP) or one of test/fixtures/sipp;
 * `timeoutS` bounds its run (60 s); `fill` replaces the scenario's `{{name}}` fields (`final` and `ring-final` take
 * the final response as `status` and `reason`: sipp reads a response's code when it loads the scenario).
 */
export async function startSipp(
  scenario: 'uas' | SippScenario,
  calls = 1,
  transport: 'udp' | 'tcp' = 'udp',
  options: { timeoutS?: number; fill?: Record<string, string> } = {},
): Promise<SippPeer> {
  // A port taken since it was drawn (another test's peer): drawn again, five times in all.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSippOnce(scenario, calls, transport, options);
    } catch (err) {
      if (attempt === 5 || !/Address already in use/.test((err as Error).message)) throw err;
    }
  }
}

async function startSippOnce(
  scenario: 'uas' | SippScenario,
  calls: number,
  transport: 'udp' | 'tcp',
  options: { timeoutS?: number; fill?: Record<string, string> },
): Promise<SippPeer> {
  // Below Linux's ephemeral range (32768 and up), where the machine's own outgoing connections take ports.
  const port = 20000 + Math.floor(Math.random() * 12000);
  const mediaPort = port + 2;
  let file = join(import.meta.dirname, '..', 'fixtures', 'sipp', `${scenario}.xml`);
  if (options.fill) {
    let xml = readFileSync(file, 'utf8');
    for (const [name, value] of Object.entries(options.fill)) xml = xml.replaceAll(`{{${name}}}`, value);
    file = join(mkdtempSync(join(tmpdir(), 'yona-sipp-')), `${scenario}.xml`);
    writeFileSync(file, xml);
  }
  const which = scenario === 'uas' ? ['-sn', 'uas'] : ['-sf', file];
  const child = spawn(
    'sipp',
    [
      ...which,
      '-t',
      transport === 'tcp' ? 't1' : 'u1',
      '-i',
      '127.0.0.1',
      '-p',
      String(port),
      '-mp',
      String(mediaPort),
      '-rtp_echo',
      '-m',
      String(calls),
      '-nostdin',
      '-timeout',
      `${options.timeoutS ?? 60}s`,
      '-timeout_error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const exit = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? -1)));
  // sipp listens at once; give it a moment to bind before the first INVITE.
  await new Promise((r) => setTimeout(r, 300));
  if (child.exitCode !== null) throw new Error(`sipp did not start: ${stderr}`);
  return { port, exit, stderr: () => stderr, stop: () => child.kill('SIGKILL') };
}

// A trunk's health: an OPTIONS request (RFC 3261 section 11) every interval, in a non-INVITE client transaction
// of its own. Any answer below 500 shows the trunk up (a trunk may answer 404 or 405 to OPTIONS and still take
// calls); a 5xx or no answer within timer F (64 x T1) shows it down. The last result shows in /healthz and in
// `yona admin carriers`.
import type { Trunk } from './call.ts';
import { formatRequest, newBranch, parseSip, sipToken, type SipMessage } from './message.ts';
import { ClientTransactions } from './transaction.ts';
import { openTransport } from './transport.ts';
import type { TrunkHealth } from '../types.ts';

export type { TrunkHealth } from '../types.ts';

/** Sends one OPTIONS to the trunk; resolves with what it showed. */
export async function checkTrunk(trunk: Trunk): Promise<TrunkHealth> {
  const started = performance.now();
  let transport: Awaited<ReturnType<typeof openTransport>>;
  try {
    transport = await openTransport(trunk.transport ?? 'udp', trunk.host, trunk.port, trunk.localIp);
  } catch (err) {
    return { up: false, checkedAt: Date.now(), error: `cannot reach the trunk: ${(err as Error).message}` };
  }
  const domain = trunk.domain ?? trunk.host;
  const transactions = new ClientTransactions(transport);
  try {
    const answer = await new Promise<SipMessage | undefined>((resolve) => {
      transport.onMessage((raw) => {
        const message = parseSip(raw);
        if (message && message.method === undefined) transactions.receive(message);
      });
      const branch = newBranch();
      const uri = `sip:${domain}:${trunk.port}`;
      const text = formatRequest('OPTIONS', uri, [
        [
          'Via',
          `SIP/2.0/${transport.kind.toUpperCase()} ${trunk.localIp}:${transport.localPort()};branch=${branch};rport`,
        ],
        ['Max-Forwards', '70'],
        ['From', `<sip:${trunk.callerId}@${domain}>;tag=${sipToken()}`],
        ['To', `<${uri}>`],
        ['Call-ID', `${sipToken(12)}@yona`],
        ['CSeq', '1 OPTIONS'],
        ['Accept', 'application/sdp'],
        ['User-Agent', 'Yona'],
      ]);
      transactions.start(
        { method: 'OPTIONS', branch, seq: 1, text },
        { response: (m) => m.status! >= 200 && resolve(m), timeout: () => resolve(undefined) },
      );
    });
    const checkedAt = Date.now();
    if (!answer) return { up: false, checkedAt, error: 'no answer to OPTIONS' };
    const rttMs = Math.round(performance.now() - started);
    const up = answer.status! < 500;
    return {
      up,
      sipStatus: answer.status,
      rttMs,
      checkedAt,
      ...(up ? {} : { error: `${answer.status} ${answer.reason ?? ''}`.trim() }),
    };
  } finally {
    transactions.close();
    await transport.close();
  }
}

/** Checks a trunk every `intervalMs` while started; `health` is the last result. */
export class TrunkMonitor {
  health: TrunkHealth = {};
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly trunk: Trunk,
    private readonly intervalMs: number,
    private readonly onChange: (health: TrunkHealth, before: TrunkHealth) => void = () => {},
  ) {}

  start(): void {
    if (this.running || this.intervalMs <= 0) return;
    this.running = true;
    void this.check();
  }

  private async check(): Promise<void> {
    const before = this.health;
    this.health = await checkTrunk(this.trunk);
    if (before.up !== this.health.up) this.onChange(this.health, before);
    if (this.running) {
      this.timer = setTimeout(() => void this.check(), this.intervalMs);
      this.timer.unref();
    }
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }
}

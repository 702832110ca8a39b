// The voice trunk as a carrier (protocol 'sip'): a submit places a call to the destination with the message
// spoken, once the trunk's concurrent-call limit and calls-per-second allow; it resolves when the call has been
// started (its id is the call's Call-ID), and the call's outcome comes back later as a receipt carrying our
// delivery status, like an SMS's delivery receipt.
import type {
  Carrier,
  CarrierCondition,
  CarrierConfigBase,
  CarrierLogger,
  InboundSms,
  LateAccept,
  OutboundSms,
  Receipt,
  SubmitResult,
} from '../types.ts';
import { placeCall, type CallOutcome, type CallResult, type Trunk } from './call.ts';
import { TrunkMonitor, type TrunkHealth } from './options.ts';
import { CALL_REFUNDED, CALL_STATUS, triesAnotherTrunk } from './outcomes.ts';
import { sharedSpeech, type SpeechEngine } from '../../speech/speech.ts';

/** Settings of one voice trunk. */
export interface SipTrunkConfig extends CarrierConfigBase, Trunk {
  protocol: 'sip';
  /** Calls up at once on this trunk. */
  maxCalls: number;
  /** New calls a second (0: no cap). */
  callsPerSecond: number;
  ringTimeoutMs: number;
  /** How often an OPTIONS request checks the trunk (0 or absent: never). */
  optionsIntervalMs?: number;
}

/** How a call message is spoken: the tts block of its send. */
export type SpokenMessage = NonNullable<OutboundSms['spoken']>;

export { CALL_REFUNDED, CALL_STATUS };

/** Calls of a trunk by how they ended (result and SIP status), for metrics. */
export type CallCounts = Map<string, { result: CallResult; sipStatus: string; count: number }>;

const MAX_SHARES = 10;
/** How long a trunk may fail its OPTIONS checks before that is an incident (as an SMPP carrier's downGraceMs). */
const DOWN_GRACE_MS = 5_000;

const silent: CarrierLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** A voice trunk; `speech` renders the messages (espeak-ng by default, each text once). */
export class SipCarrier implements Carrier {
  readonly protocol = 'sip';
  readonly name: string;
  readonly inFlightLimit: number;
  private readonly receiptHandlers: Array<(r: Receipt) => void | Promise<void>> = [];
  private readonly waiting: Array<() => void> = [];
  private active = 0;
  /** Calls this node may have up at once: the trunk's limit, or the shares of it this node holds. */
  private capacity: number;
  /** The trunk's call limit split into shares several nodes hold through leases (up to 10). */
  readonly shares: number;
  private lastStart = 0;
  private stopped = false;
  private readonly calls = new Set<Promise<void>>();
  /** Outcomes of the calls placed so far (for tests and benchmarks; the last 10,000). */
  readonly outcomes: Array<CallOutcome & { messageId: number }> = [];
  /** Calls by result and SIP status (for metrics). */
  readonly counts: CallCounts = new Map();
  private readonly monitor: TrunkMonitor;
  /** Since when the trunk has not answered OPTIONS (its health checks). */
  private downSince: number | undefined;

  constructor(
    private readonly config: SipTrunkConfig,
    private readonly speech: SpeechEngine = sharedSpeech(),
    private readonly log: CarrierLogger = silent,
  ) {
    this.name = config.name;
    this.inFlightLimit = Math.max(1, config.maxCalls);
    this.capacity = this.inFlightLimit;
    this.shares = Math.min(this.inFlightLimit, MAX_SHARES);
    this.monitor = new TrunkMonitor(config, config.optionsIntervalMs ?? 0, (now) => {
      this.downSince = now.up ? undefined : (this.downSince ?? now.checkedAt ?? Date.now());
      (now.up ? this.log.info : this.log.warn).call(
        this.log,
        { up: now.up, sipStatus: now.sipStatus, error: now.error },
        now.up ? 'trunk answers OPTIONS' : 'trunk does not answer OPTIONS',
      );
    });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.monitor.start();
  }

  /** The last OPTIONS check of the trunk (empty when checks are off or none ended yet). */
  health(): TrunkHealth {
    return this.monitor.health;
  }

  /** The trunk as a carrier's health sees it: one 'bind' while it answers OPTIONS, its calls as the window. */
  condition(): CarrierCondition {
    const h = this.monitor.health;
    const up = !this.stopped && h.up !== false;
    const failed =
      h.up === false ? (h.sipStatus !== undefined ? `OPTIONS answered ${h.sipStatus}` : h.error) : undefined;
    return {
      bindsUp: up ? 1 : 0,
      bindsHeld: 1,
      bindsWanted: 1,
      windowInUse: this.active,
      windowSize: this.capacity,
      ...(this.downSince !== undefined && !this.stopped ? { downSince: this.downSince } : {}),
      graceMs: DOWN_GRACE_MS,
      ...(failed ? { lastError: { text: failed, at: h.checkedAt ?? Date.now() } } : {}),
    };
  }

  /** Places at most the calls of the shares numbered `indexes` at once (the ones this node holds). */
  async useShares(indexes: number[]): Promise<void> {
    this.stopped = false;
    this.capacity = [...new Set(indexes)]
      .filter((i) => i >= 0 && i < this.shares)
      .reduce((n, i) => n + this.shareSize(i), 0);
    while (this.active < this.capacity && this.waiting.length > 0) {
      this.active++;
      this.waiting.shift()!();
    }
  }

  // Calls of share i: the limit spread as evenly as it goes.
  private shareSize(i: number): number {
    return Math.floor(this.inFlightLimit / this.shares) + (i < this.inFlightLimit % this.shares ? 1 : 0);
  }

  canSubmit(): boolean {
    return !this.stopped;
  }

  /**
   * Starts a call for the message (`sms.spoken` says how to speak it). Resolves once the trunk carried it towards
   * the callee (a provisional response beyond 100 Trying, an answer, or the callee's side's refusal), its outcome
   * coming later as a receipt; or, when the trunk failed or refused the call itself before that
   * (`triesAnotherTrunk`), with a transient refusal for the next trunk of the route, and no receipt.
   */
  async submit(sms: OutboundSms): Promise<SubmitResult> {
    if (this.stopped) return { ok: false, transient: true, error: 'trunk stopped', elsewhere: true };
    await this.slot();
    if (this.stopped) {
      this.release();
      return { ok: false, transient: true, error: 'trunk stopped', elsewhere: true };
    }
    const spoken = sms.spoken ?? { voice: 'ymMale', rate: 0, repeat: 2 };
    // The speech is rendered before the call is placed (usually it already was, to price the send): a message
    // that cannot be spoken fails (and is refunded) without ringing anyone.
    const speech = { text: sms.text, voice: spoken.voice, rate: spoken.rate };
    try {
      await this.speech.render(speech);
    } catch (err) {
      this.release();
      return { ok: false, transient: false, error: `the message could not be spoken: ${(err as Error).message}` };
    }
    const callId = `call-${sms.messageId}-${Date.now().toString(36)}`;
    let carried = false;
    let settleTaken: (refusedBy?: CallOutcome) => void = () => {};
    const taken = new Promise<CallOutcome | undefined>((resolve) => (settleTaken = resolve));
    const call = placeCall(this.config, {
      to: sms.destination,
      repeat: spoken.repeat,
      ringTimeoutMs: this.config.ringTimeoutMs,
      audio: () => this.speech.render(speech),
      ...(spoken.paidSeconds !== undefined ? { maxPlayMs: spoken.paidSeconds * 1000 } : {}),
      onProgress: () => {
        carried = true;
        settleTaken();
      },
    })
      .then(async (outcome) => {
        this.record(outcome, sms.messageId);
        if (!carried && triesAnotherTrunk(outcome)) return settleTaken(outcome);
        settleTaken();
        const status = CALL_STATUS[outcome.result];
        const refund = CALL_REFUNDED.has(outcome.result) ? { notPlaced: true as const } : {};
        const played =
          (outcome.result === 'answered' || outcome.result === 'hung_up') && outcome.media
            ? { durationMs: outcome.media.durationMs }
            : {};
        for (const handler of this.receiptHandlers)
          await handler({ carrierMessageId: callId, status, ...refund, ...played });
      })
      .catch((err) => this.log.error({ err }, 'reporting a call outcome failed'))
      .finally(() => {
        settleTaken();
        this.release();
        this.calls.delete(call);
      });
    this.calls.add(call);
    const refusedBy = await taken;
    if (refusedBy) return { ok: false, transient: true, elsewhere: true, error: `trunk: ${refusedBy.reason}` };
    return { ok: true, carrierMessageIds: [callId] };
  }

  // One log line and one count per call outcome (the logger names the trunk as the carrier).
  private record(outcome: CallOutcome, messageId: number): void {
    if (this.outcomes.length >= 10_000) this.outcomes.shift();
    this.outcomes.push({ ...outcome, messageId });
    const sipStatus = outcome.sipStatus === undefined ? 'none' : String(outcome.sipStatus);
    const key = `${outcome.result}\u0000${sipStatus}`;
    const count = this.counts.get(key) ?? { result: outcome.result, sipStatus, count: 0 };
    count.count++;
    this.counts.set(key, count);
    this.log.info(
      {
        messageId,
        callId: outcome.callId,
        result: outcome.result,
        status: CALL_STATUS[outcome.result],
        sipStatus: outcome.sipStatus ?? null,
        reason: outcome.reason,
        ...(outcome.media
          ? { law: outcome.media.law, playedMs: outcome.media.durationMs, firstPacketMs: outcome.media.firstPacketMs }
          : {}),
      },
      'call ended',
    );
  }

  // Waits for a free call slot and for the calls-per-second spacing.
  // A freed slot passes straight to the first waiter (counted for it), so no submit arriving in between takes it.
  private async slot(): Promise<void> {
    if (this.active >= this.capacity || this.waiting.length > 0)
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    if (this.config.callsPerSecond > 0) {
      const gap = 1000 / this.config.callsPerSecond;
      const wait = this.lastStart + gap - Date.now();
      this.lastStart = Math.max(Date.now(), this.lastStart + gap);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  private release(): void {
    const next = this.active <= this.capacity ? this.waiting.shift() : undefined;
    if (next) next();
    else this.active--;
  }

  onReceipt(handler: (receipt: Receipt) => void | Promise<void>): void {
    this.receiptHandlers.push(handler);
  }

  onInbound(_handler: (sms: InboundSms) => void | Promise<void>): void {}

  onLateAccept(_handler: (accepted: LateAccept) => void | Promise<void>): void {}

  /** Calls in progress: how many now. */
  activeCalls(): number {
    return this.active;
  }

  freeSlots(): number {
    return this.stopped ? 0 : Math.max(0, this.capacity - this.active - this.waiting.length);
  }

  /** Stops taking calls and lets the calls in progress end. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.monitor.stop();
    for (const w of this.waiting.splice(0)) {
      this.active++; // each waiter wakes to find the trunk stopped and releases its slot
      w();
    }
    await Promise.all([...this.calls]);
  }
}

// The voice trunk as a carrier (protocol 'sip'): a submit places a call to the destination with the message
// spoken, once the trunk's concurrent-call limit and calls-per-second allow; it resolves when the call has been
// started (its id is the call's Call-ID), and the call's outcome comes back later as a receipt carrying our
// delivery status, like an SMS's delivery receipt.
import type {
  Carrier,
  CarrierConfigBase,
  CarrierLogger,
  InboundSms,
  LateAccept,
  OutboundSms,
  Receipt,
  SubmitResult,
} from '../types.ts';
import { placeCall, type CallOutcome, type CallResult, type Trunk } from './call.ts';
import { CachedSpeech, EspeakEngine, type SpeechEngine } from './speech.ts';
import { DELIVERY, type DeliveryStatus } from '../../domain/status.ts';

/** Settings of one voice trunk. */
export interface SipTrunkConfig extends CarrierConfigBase, Trunk {
  protocol: 'sip';
  /** Calls up at once on this trunk. */
  maxCalls: number;
  /** New calls a second (0: no cap). */
  callsPerSecond: number;
  ringTimeoutMs: number;
}

/** How a call message is spoken: the tts block of its send. */
export type SpokenMessage = NonNullable<OutboundSms['spoken']>;

/** Delivery statuses of call outcomes (compatibility.md's catalogue where it has one; 110 and 111 are Yona's). */
export const CALL_STATUS: Record<CallResult, DeliveryStatus> = {
  answered: DELIVERY.DELIVERED,
  busy: DELIVERY.CALL_BUSY,
  no_answer: DELIVERY.CALL_NO_ANSWER,
  rejected: DELIVERY.REJECTED,
  failed: DELIVERY.FAILED,
};

const MAX_SHARES = 10;

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
  /** Outcomes of the calls placed so far (for metrics and tests). */
  readonly outcomes: Array<CallOutcome & { messageId: number }> = [];

  constructor(
    private readonly config: SipTrunkConfig,
    private readonly speech: SpeechEngine = new CachedSpeech(new EspeakEngine()),
    private readonly log: CarrierLogger = silent,
  ) {
    this.name = config.name;
    this.inFlightLimit = Math.max(1, config.maxCalls);
    this.capacity = this.inFlightLimit;
    this.shares = Math.min(this.inFlightLimit, MAX_SHARES);
  }

  async start(): Promise<void> {
    this.stopped = false;
  }

  /** Places at most the calls of the shares numbered `indexes` at once (the ones this node holds). */
  async useShares(indexes: number[]): Promise<void> {
    this.stopped = false;
    this.capacity = [...new Set(indexes)]
      .filter((i) => i >= 0 && i < this.shares)
      .reduce((n, i) => n + this.shareSize(i), 0);
    while (this.active < this.capacity && this.waiting.length > 0) this.waiting.shift()!();
  }

  // Calls of share i: the limit spread as evenly as it goes.
  private shareSize(i: number): number {
    return Math.floor(this.inFlightLimit / this.shares) + (i < this.inFlightLimit % this.shares ? 1 : 0);
  }

  canSubmit(): boolean {
    return !this.stopped;
  }

  /** Starts a call for the message (`sms.spoken` says how to speak it); resolves once the call is placed. */
  async submit(sms: OutboundSms): Promise<SubmitResult> {
    if (this.stopped) return { ok: false, transient: true, error: 'trunk stopped' };
    await this.slot();
    if (this.stopped) {
      this.release();
      return { ok: false, transient: true, error: 'trunk stopped' };
    }
    const spoken = sms.spoken ?? { voice: 'ymMale', rate: 0, repeat: 2 };
    // The speech is rendered before the call is placed: a message that cannot be spoken fails (and is refunded)
    // without ringing anyone.
    try {
      await this.speech.render({ text: sms.text, voice: spoken.voice, rate: spoken.rate, law: 'pcma' });
    } catch (err) {
      this.release();
      return { ok: false, transient: false, error: `the message could not be spoken: ${(err as Error).message}` };
    }
    const callId = `call-${sms.messageId}-${Date.now().toString(36)}`;
    const call = placeCall(this.config, {
      to: sms.destination,
      repeat: spoken.repeat,
      ringTimeoutMs: this.config.ringTimeoutMs,
      audio: (law) => this.speech.render({ text: sms.text, voice: spoken.voice, rate: spoken.rate, law }),
    })
      .then(async (outcome) => {
        this.outcomes.push({ ...outcome, messageId: sms.messageId });
        this.log.info(
          { carrier: this.name, result: outcome.result, sipStatus: outcome.sipStatus, ms: outcome.media?.durationMs },
          'call ended',
        );
        const notPlaced =
          outcome.result === 'failed' && outcome.sipStatus === undefined ? { notPlaced: true as const } : {};
        const played = outcome.result === 'answered' && outcome.media ? { durationMs: outcome.media.durationMs } : {};
        for (const handler of this.receiptHandlers)
          await handler({ carrierMessageId: callId, status: CALL_STATUS[outcome.result], ...notPlaced, ...played });
      })
      .catch((err) => this.log.error({ carrier: this.name, err }, 'reporting a call outcome failed'))
      .finally(() => {
        this.release();
        this.calls.delete(call);
      });
    this.calls.add(call);
    return { ok: true, carrierMessageIds: [callId] };
  }

  // Waits for a free call slot and for the calls-per-second spacing.
  private async slot(): Promise<void> {
    if (this.active >= this.capacity) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    if (this.config.callsPerSecond > 0) {
      const gap = 1000 / this.config.callsPerSecond;
      const wait = this.lastStart + gap - Date.now();
      this.lastStart = Math.max(Date.now(), this.lastStart + gap);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  private release(): void {
    this.active--;
    if (this.active < this.capacity) this.waiting.shift()?.();
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
    for (const w of this.waiting.splice(0)) w();
    await Promise.all([...this.calls]);
  }
}

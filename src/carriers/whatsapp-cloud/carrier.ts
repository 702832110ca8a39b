// A WhatsApp Cloud API carrier: one business number. It sends over the Graph API at the number's pace (its share
// of the rate on this node, each user's pace), retries Meta's throttling answers a few times with backoff before
// handing the message back as throttled (retried later, never failed of it), and answers Meta's other errors as
// delivery statuses with Meta's code kept. Its statuses and the users' messages come by webhook (webhook.ts).
import type { Carrier, CarrierCondition, CarrierLogger, OutboundMessage, SubmitResult } from '../types.ts';
import { outcomeOfCode } from './codes.ts';
import { GraphClient } from './graph.ts';
import { Pacing } from './pacing.ts';
import { RATE_SHARES, type WhatsappCarrierConfig } from './settings.ts';

export const WHATSAPP_PROTOCOL = 'whatsapp-cloud';

/** Tries of one send on Meta's throttling answers before it goes back to the queue. */
const THROTTLED_TRIES = 3;
const BACKOFF_MS = 400;
/** A user's turn further away than this sends the message back to the queue instead of holding a slot. */
const USER_WAIT_MS = 7000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class WhatsappCloudCarrier implements Carrier {
  readonly protocol = WHATSAPP_PROTOCOL;
  readonly shares = RATE_SHARES;
  private readonly graph: GraphClient;
  private readonly pacing: Pacing;
  private held: number[] = [];
  private sharesChosen = false;
  private unanswered = 0;
  private throttledSince: number | undefined;
  private lastError: { text: string; at: number } | undefined;

  constructor(
    private readonly config: WhatsappCarrierConfig,
    private readonly log: CarrierLogger,
  ) {
    this.graph = new GraphClient(config);
    this.pacing = new Pacing({
      messagesPerSecond: config.messagesPerSecond,
      shares: RATE_SHARES,
      userIntervalMs: config.userIntervalMs,
      userBurst: config.userBurst,
    });
  }

  get name(): string {
    return this.config.name;
  }

  get inFlightLimit(): number {
    return this.config.inFlight;
  }

  async start(): Promise<void> {
    if (!this.sharesChosen) await this.useShares([...Array(RATE_SHARES).keys()]);
  }

  /** Sends at the part of the number's rate that the shares this node holds give it. */
  async useShares(indexes: number[]): Promise<void> {
    this.sharesChosen = true;
    this.held = indexes.filter((i) => i >= 0 && i < RATE_SHARES);
    this.pacing.useShares(this.held.length);
  }

  canSubmit(): boolean {
    return this.held.length > 0;
  }

  onReceipt(): void {}
  onInbound(): void {}

  async submit(message: OutboundMessage): Promise<SubmitResult> {
    if (!this.config.anyBusinessNumber && message.source !== this.config.businessNumber)
      return {
        ok: false,
        transient: true,
        elsewhere: true,
        error: `business number ${message.source} is not this carrier's (${this.config.businessNumber})`,
      };
    if (this.held.length === 0)
      return { ok: false, transient: true, elsewhere: true, error: 'this node holds no share of the number' };
    for (let attempt = 1; ; attempt++) {
      if (!(await this.pacing.turn(message.destination, USER_WAIT_MS)))
        return { ok: false, transient: true, throttled: true, error: 'paced: this user got messages just now' };
      this.unanswered++;
      const answer = await this.graph.send(message).finally(() => this.unanswered--);
      if (answer.ok) {
        if (this.throttledSince !== undefined && !this.pacing.paused) this.throttledSince = undefined;
        return { ok: true, carrierMessageIds: [answer.id] };
      }
      this.lastError = { text: answer.error, at: Date.now() };
      if ('unanswered' in answer) return { ok: false, transient: true, error: answer.error };
      const outcome = outcomeOfCode(answer.code, answer.http);
      if (outcome.kind === 'failed')
        return {
          ok: false,
          transient: false,
          status: outcome.status,
          error: answer.error,
          ...(answer.code ? { carrierError: String(answer.code) } : {}),
        };
      if (outcome.kind === 'retry') return { ok: false, transient: true, error: answer.error };
      // Throttled: the number (130429) pauses every send a moment; a user or spam limit waits for this one only.
      this.throttledSince ??= Date.now();
      const backoff = BACKOFF_MS * 2 ** (attempt - 1);
      if (answer.code === 130429 || answer.http === 429) this.pacing.pause(backoff);
      this.log.warn({ code: answer.code, attempt, to: message.destination }, 'WhatsApp: throttled by Meta; retrying');
      if (attempt >= THROTTLED_TRIES)
        return { ok: false, transient: true, throttled: true, error: answer.error, carrierError: String(answer.code) };
      await sleep(backoff);
    }
  }

  condition(): CarrierCondition {
    const up = this.held.length > 0 ? 1 : 0;
    return {
      bindsUp: up,
      bindsHeld: up,
      bindsWanted: 1,
      windowInUse: this.unanswered,
      windowSize: this.config.inFlight,
      ...(this.throttledSince !== undefined ? { throttledSince: this.throttledSince } : {}),
      paced: this.pacing.paused,
      graceMs: 60_000,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  async stop(): Promise<void> {
    this.held = [];
    await this.graph.close();
  }
}

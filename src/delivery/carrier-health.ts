// Carrier health on this node: what the dispatcher counts per carrier as it submits (submits answered, the
// recent rate, messages held for one of the carrier's permits, the last refusal), merged with the carrier's own
// view of itself (binds, window, throttling, its last connection error) into one report per carrier. The
// counting is a few increments and one Map entry per submit; the reports are built only when read (/healthz,
// /metrics, the node's heartbeat). docs/carriers.md "Health" says what each figure means.
import { carrierChannel, type CarrierChannel } from '../carriers/index.ts';
import type { Carrier, SubmitResult } from '../carriers/types.ts';

/** Seconds the recent submit rate is taken over. */
export const RATE_SECONDS = 10;

/** One carrier's health on this node (the figures of docs/carriers.md "Health"). */
export interface CarrierHealth {
  carrier: string;
  protocol: string;
  channel: CarrierChannel;
  /** Whether it can take submits now (at least one bind up). */
  canSubmit: boolean;
  bindsUp: number;
  bindsHeld: number;
  bindsWanted: number;
  /** Submits answered over the last RATE_SECONDS, per second. */
  submitsPerSecond: number;
  /** Submits answered since start: accepted, and refused (any failure, the carrier's or the connection's). */
  submitsAccepted: number;
  submitsRefused: number;
  /** Messages sent to another carrier of their route while this one was down (none of them reached it). */
  diverted?: number;
  windowInUse: number;
  windowSize: number;
  throttled: boolean;
  throttledSince?: number;
  /** Submits wait for the carrier's pace (maxSubmitsPerSecond, or its rate cut after a push-back). */
  paced: boolean;
  down: boolean;
  downSince?: number;
  graceMs: number;
  lastError?: { text: string; at: number };
  /** Messages this node's dispatcher holds for one of the carrier's permits (claimed, routed here, not yet handed over). */
  held: number;
  /** When the oldest of them was accepted (ms since the epoch). */
  heldOldestAcceptedAt?: number;
}

// Submits answered per second over the last RATE_SECONDS seconds, one slot per second.
class RecentRate {
  private readonly counts = new Uint32Array(RATE_SECONDS);
  private readonly seconds = new Float64Array(RATE_SECONDS).fill(-1);

  add(now: number): void {
    const second = Math.floor(now / 1000);
    const slot = second % RATE_SECONDS;
    if (this.seconds[slot] !== second) {
      this.seconds[slot] = second;
      this.counts[slot] = 0;
    }
    this.counts[slot]++;
  }

  perSecond(now: number): number {
    const second = Math.floor(now / 1000);
    let sum = 0;
    for (let i = 0; i < RATE_SECONDS; i++) if (this.seconds[i] > second - RATE_SECONDS) sum += this.counts[i];
    // The current second counts for the part of it that has passed.
    const span = RATE_SECONDS - 1 + (now % 1000) / 1000;
    return Math.round((sum / span) * 10) / 10;
  }
}

class Tally {
  accepted = 0;
  refused = 0;
  diverted = 0;
  readonly rate = new RecentRate();
  /** Messages held for a permit: id -> when accepted. */
  readonly held = new Map<number, number>();
  lastError: { text: string; at: number } | undefined;
}

/** What the dispatcher tells about each carrier as it submits; read into CarrierHealth reports. */
export class CarrierHealthBook {
  private readonly tallies = new Map<string, Tally>();

  constructor(private readonly clock: () => number = Date.now) {}

  private tally(carrier: string): Tally {
    let tally = this.tallies.get(carrier);
    if (!tally) this.tallies.set(carrier, (tally = new Tally()));
    return tally;
  }

  /** A message starts waiting for one of the carrier's permits. */
  holding(carrier: string, messageId: number, acceptedAt: number): void {
    this.tally(carrier).held.set(messageId, acceptedAt);
  }

  /** The message got its permit (it goes to the carrier now). */
  handedOver(carrier: string, messageId: number): void {
    this.tally(carrier).held.delete(messageId);
  }

  /** The carrier answered a submit. */
  answered(carrier: string, result: SubmitResult): void {
    const tally = this.tally(carrier);
    const now = this.clock();
    tally.rate.add(now);
    if (result.ok) tally.accepted++;
    else {
      tally.refused++;
      tally.lastError = { text: result.error, at: now };
    }
  }

  /** A message went to another carrier of its route, this one being down: not a refusal of this one. */
  diverted(carrier: string): void {
    this.tally(carrier).diverted++;
  }

  /** The health of `carrier` on this node now. */
  report(carrier: Carrier): CarrierHealth {
    const now = this.clock();
    const tally = this.tally(carrier.name);
    const c = carrier.condition?.() ?? {
      bindsUp: carrier.canSubmit() ? 1 : 0,
      bindsHeld: 1,
      bindsWanted: 1,
      windowInUse: 0,
      windowSize: carrier.inFlightLimit,
      graceMs: 0,
    };
    let oldest: number | undefined;
    for (const at of tally.held.values()) if (oldest === undefined || at < oldest) oldest = at;
    const lastError =
      tally.lastError && (!c.lastError || tally.lastError.at > c.lastError.at) ? tally.lastError : c.lastError;
    return {
      carrier: carrier.name,
      protocol: carrier.protocol,
      channel: carrierChannel(carrier.protocol),
      canSubmit: carrier.canSubmit(),
      bindsUp: c.bindsUp,
      bindsHeld: c.bindsHeld,
      bindsWanted: c.bindsWanted,
      submitsPerSecond: tally.rate.perSecond(now),
      submitsAccepted: tally.accepted,
      submitsRefused: tally.refused,
      diverted: tally.diverted,
      windowInUse: c.windowInUse,
      windowSize: c.windowSize,
      throttled: c.throttledSince !== undefined,
      ...(c.throttledSince !== undefined ? { throttledSince: c.throttledSince } : {}),
      paced: c.paced ?? false,
      down: c.downSince !== undefined,
      ...(c.downSince !== undefined ? { downSince: c.downSince } : {}),
      graceMs: c.graceMs,
      ...(lastError ? { lastError } : {}),
      held: tally.held.size,
      ...(oldest !== undefined ? { heldOldestAcceptedAt: oldest } : {}),
    };
  }

  /** Reports of every carrier this node runs, by name. */
  reports(carriers: Iterable<Carrier>): CarrierHealth[] {
    return [...carriers].map((c) => this.report(c));
  }
}

// Flow control for submits: a token bucket with pause/slow-down for SMSC throttling, and small timing helpers.

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Exponential backoff with jitter: base * 2^attempt, capped at max, scaled by 0.75..1.25. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number): number {
  const raw = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.min(maxMs, Math.round(raw * (0.75 + Math.random() * 0.5)));
}

/**
 * Token bucket shared by every session of a carrier. `take()` resolves in FIFO order at most `rate` times
 * per second (rate <= 0 or Infinity means unlimited). On ESME_RTHROTTLED the carrier calls `throttled()`:
 * the bucket pauses and halves its rate, once per throttle episode (a window of throttled answers to
 * submits already in flight cuts it once, not once per answer); each later success adds back 2% of the
 * configured rate (AIMD).
 */
export class TokenBucket {
  private rate: number;
  private tokens: number;
  private last: number;
  private pausedUntil = 0;
  private lastCutAt = -Infinity;
  private readonly waiters: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  /** `now`: the clock it measures with, in milliseconds (a test passes a virtual one). */
  constructor(
    private readonly maxRate: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.last = now();
    this.rate = this.limited ? maxRate : Infinity;
    this.tokens = this.burst;
  }

  private get limited(): boolean {
    return Number.isFinite(this.maxRate) && this.maxRate > 0;
  }

  // A 50 ms burst keeps timer granularity from capping throughput at high rates.
  private get burst(): number {
    return Math.max(1, Math.ceil(this.rate / 20));
  }

  /** Current allowed rate (submits per second). */
  get currentRate(): number {
    return this.rate;
  }

  /** Whether submits wait for a token now (the pace holds them back). */
  get holding(): boolean {
    return this.waiters.length > 0;
  }

  /** Whether the rate is back at its configured maximum and no pause holds submits. */
  get recovered(): boolean {
    return (!this.limited || this.rate >= this.maxRate) && this.now() >= this.pausedUntil;
  }

  /** Waits for one token. */
  take(): Promise<void> {
    const now = this.now();
    if (this.waiters.length === 0 && now >= this.pausedUntil) {
      if (!Number.isFinite(this.rate)) return Promise.resolve();
      this.refill(now);
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return Promise.resolve();
      }
    }
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.schedule();
    });
  }

  /**
   * The SMSC said slow down to a submit sent at `sentAt` (the bucket's clock, performance.now()): pause everyone for `pauseMs`,
   * and halve the rate (when limited) unless that submit was sent before the last cut, i.e. it was already
   * in flight then and its answer belongs to the episode that cut. Returns whether the rate was cut.
   */
  throttled(pauseMs: number, sentAt = this.now()): boolean {
    const now = this.now();
    this.pausedUntil = Math.max(this.pausedUntil, now + pauseMs);
    this.tokens = 0;
    const cut = this.limited && sentAt > this.lastCutAt;
    if (cut) {
      this.rate = Math.max(1, this.rate / 2);
      this.lastCutAt = now;
    }
    this.schedule();
    return cut;
  }

  /** A submit was accepted: creep back towards the configured rate. */
  succeeded(): void {
    if (this.limited && this.rate < this.maxRate) this.rate = Math.min(this.maxRate, this.rate + this.maxRate / 50);
  }

  /** Releases every waiter (used on stop; callers re-check their own state). */
  releaseAll(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  private refill(now: number): void {
    if (Number.isFinite(this.rate)) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    }
    this.last = now;
  }

  private schedule(): void {
    if (this.timer || this.waiters.length === 0) return;
    const now = this.now();
    this.refill(now);
    const forTokens = Number.isFinite(this.rate) ? ((1 - this.tokens) / this.rate) * 1000 : 0;
    const wait = Math.max(this.pausedUntil - now, forTokens, 0);
    this.timer = setTimeout(() => this.drain(), Math.max(1, Math.ceil(wait)));
  }

  private drain(): void {
    this.timer = undefined;
    const now = this.now();
    if (now < this.pausedUntil) return this.schedule();
    this.refill(now);
    while (this.waiters.length > 0 && (this.tokens >= 1 || !Number.isFinite(this.rate))) {
      if (Number.isFinite(this.rate)) this.tokens -= 1;
      this.waiters.shift()!();
    }
    this.schedule();
  }
}

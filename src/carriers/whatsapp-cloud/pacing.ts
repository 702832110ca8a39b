// The pace of a business number's sends. Its rate (messages per second) is shared between the nodes that hold
// shares of it (leases of `whatsapp:CARRIER#i`, one node each): a node holding k of RATE_SHARES shares sends at
// most rate x k / RATE_SHARES per second, so the nodes together never exceed the rate. Each user gets about one
// message every `userIntervalMs`, up to `userBurst` at once; a pause after Meta's throttling answers holds every
// send for a while.

/** A token bucket: `rate` tokens a second, at most `burst` saved; `wait()` says how long until one is free. */
class Bucket {
  private tokens: number;
  private last: number;
  constructor(
    private rate: number,
    private burst: number,
    private readonly now: () => number,
  ) {
    this.tokens = burst;
    this.last = now();
  }
  setRate(rate: number, burst: number): void {
    this.refill();
    this.rate = rate;
    this.burst = burst;
    this.tokens = Math.min(this.tokens, burst);
  }
  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
  }
  /** Takes a token when one is free (0), else says how many ms until one is (taking nothing). */
  take(): number {
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return 0;
    }
    if (this.rate <= 0) return Infinity;
    return Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }
  /** Whether it has stood full for a while (a user's bucket no longer needed). */
  full(): boolean {
    this.refill();
    return this.tokens >= this.burst;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface PacingOptions {
  messagesPerSecond: number;
  shares: number;
  userIntervalMs: number;
  userBurst: number;
  now?: () => number;
}

/** A business number's pace on this node. */
export class Pacing {
  private readonly now: () => number;
  private readonly number: Bucket;
  private readonly users = new Map<string, Bucket>();
  private held = 0;
  private pausedUntil = 0;
  private line: Promise<void> = Promise.resolve();

  constructor(private readonly options: PacingOptions) {
    this.now = options.now ?? (() => performance.now());
    this.number = new Bucket(0, 1, this.now);
    this.useShares(options.shares);
  }

  /** This node now holds `held` of the shares: its part of the rate. */
  useShares(held: number): void {
    this.held = held;
    const rate = (this.options.messagesPerSecond * held) / this.options.shares;
    // A 50 ms burst keeps timer granularity from capping high rates.
    this.number.setRate(rate, Math.max(1, Math.ceil(rate / 20)));
  }

  /** The rate this node may send at, per second. */
  get rate(): number {
    return (this.options.messagesPerSecond * this.held) / this.options.shares;
  }

  /** Whether sends wait now for the pace (a pause after throttling, or the rate). */
  get paused(): boolean {
    return this.now() < this.pausedUntil;
  }

  /** Holds every send for `ms` (Meta answered that the number sends too fast). */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /**
   * Waits for the user's turn, then for the number's (sends in line, first come first served); false when the
   * user's turn is further away than `maxWaitMs` (the message should come back later).
   */
  async turn(user: string, maxWaitMs: number): Promise<boolean> {
    const bucket = this.userBucket(user);
    const wait = bucket?.take() ?? 0;
    if (wait > maxWaitMs) return false;
    if (wait > 0) {
      await sleep(wait);
      bucket?.take();
    }
    const mine = this.line.then(() => this.numberTurn());
    this.line = mine.catch(() => undefined);
    await mine;
    return true;
  }

  private async numberTurn(): Promise<void> {
    for (;;) {
      const paused = this.pausedUntil - this.now();
      if (paused > 0) {
        await sleep(paused);
        continue;
      }
      const wait = this.number.take();
      if (wait === 0) return;
      await sleep(Math.min(wait === Infinity ? 250 : wait, 1000));
    }
  }

  // The user's bucket; none when users are not paced (userIntervalMs 0).
  private userBucket(user: string): Bucket | undefined {
    const interval = this.options.userIntervalMs;
    if (interval <= 0) return undefined;
    let bucket = this.users.get(user);
    if (!bucket) {
      if (this.users.size > 50_000) for (const [u, b] of this.users) if (b.full()) this.users.delete(u);
      bucket = new Bucket(1000 / interval, this.options.userBurst, this.now);
      this.users.set(user, bucket);
    }
    return bucket;
  }
}

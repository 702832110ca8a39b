// Counted permits handed out in request order: a FIFO semaphore (Kysely's own mutex wakes every waiter at once).

/** At most `limit` permits out at once (a number, or read again at each turn when it can change); `acquire` waits in line. */
export class FifoPermits {
  private out = 0;
  private readonly waiters: Array<() => void> = [];
  private readonly limit: () => number;

  constructor(limit: number | (() => number)) {
    this.limit = typeof limit === 'number' ? () => limit : limit;
  }

  /** Resolves once the caller holds one permit; an urgent caller goes to the head of the line. */
  acquire(urgent = false): Promise<void> {
    if (this.waiters.length === 0 && this.out < this.max()) {
      this.out++;
      return Promise.resolve();
    }
    return new Promise((resolve) => (urgent ? this.waiters.unshift(resolve) : this.waiters.push(resolve)));
  }

  /** Callers waiting in line now. */
  get waiting(): number {
    return this.waiters.length;
  }

  /** Gives one permit back; the longest waiters get permits while the limit allows. */
  release(): void {
    this.out = Math.max(0, this.out - 1);
    while (this.waiters.length > 0 && this.out < this.max()) {
      this.out++;
      this.waiters.shift()!();
    }
  }

  private max(): number {
    return Math.max(1, this.limit());
  }
}

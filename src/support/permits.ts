// Counted permits handed out in request order: a FIFO semaphore (Kysely's own mutex wakes every waiter at once).

/** `count` permits; `acquire` waits in line while none is free. */
export class FifoPermits {
  private free: number;
  private readonly waiters: Array<() => void> = [];

  constructor(count: number) {
    this.free = Math.max(1, count);
  }

  /** Resolves once the caller holds one permit; an urgent caller goes to the head of the line. */
  acquire(urgent = false): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => (urgent ? this.waiters.unshift(resolve) : this.waiters.push(resolve)));
  }

  /** Gives one permit back (to the longest waiter, if any). */
  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.free++;
  }
}

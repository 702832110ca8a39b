// Submits per second of one account on this node: a token bucket holding one second's worth.

export class SubmitRate {
  private tokens = 0;
  private last = 0;
  private windowStart = 0;
  private inWindow = 0;
  /** Submits counted over the last whole second (for the binds table). */
  lastSecond = 0;

  /** Takes one submit at `now` under `perSecond` (0: no limit); false when over it. */
  take(perSecond: number, now: number): boolean {
    this.count(now);
    if (perSecond <= 0) return true;
    if (this.last === 0) this.tokens = perSecond;
    else this.tokens = Math.min(perSecond, this.tokens + ((now - this.last) * perSecond) / 1000);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  private count(now: number): void {
    if (now - this.windowStart >= 1000) {
      this.lastSecond = now - this.windowStart < 2000 ? this.inWindow : 0;
      this.windowStart = now;
      this.inWindow = 0;
    }
    this.inWindow++;
  }

  /** The rate to show: last second's, or 0 when nothing came for a while. */
  perSecond(now: number): number {
    return now - this.windowStart >= 2000 ? 0 : this.lastSecond;
  }
}

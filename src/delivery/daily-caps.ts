// This node's view of the carriers' daily caps, kept without a query per message: the day's counts of every
// node (carrier_daily_usage) read every REFRESH_MS, plus what this node has handed to a carrier since and not yet
// seen counted there. A message is taken by a capped carrier only while its parts fit under the cap; otherwise the
// dispatcher passes it to the next carrier on its route. What other nodes submit between two reads is seen at the
// next read, so the cap is overshot by at most what they submit in that time (docs/carriers.md).
import { type CarrierLimits, costPerPartMilli } from '../carriers/limits.ts';
import { calendarDay, fromZoned, zonedParts } from '../domain/dates.ts';
import type { Logger } from '../logger.ts';
import type { Queryable } from '../store/engine/db.ts';
import { carrierUsageOn } from '../store/carrier-usage.ts';

/** How often the day's counts are read from the store. */
export const REFRESH_MS = 250;

export class DailyCaps {
  private caps = new Map<string, CarrierLimits>();
  /** The day the counts are of, in the service's time zone, and the instants it starts and ends at. */
  private day = '';
  private dayStart = 0;
  private dayEnd = 0;
  /** The store's counts at the last read. */
  private stored = new Map<string, number>();
  /** Parts this node reserved: being submitted, or taken and not yet recorded. */
  private readonly reserved = new Map<string, number>();
  /** Parts this node recorded since the last read began (the read may not have seen them). */
  private recordedSinceRead = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly timeZone: string,
    private readonly clock: () => number,
    private readonly logger?: Logger,
  ) {
    this.today();
  }

  /** The carriers' caps and prices (a live change of settings). */
  setCaps(caps: Map<string, CarrierLimits>): void {
    this.caps = caps;
  }

  /** Reads the counts now and every REFRESH_MS until stopped. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer ??= setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the day's counts of every node from the store. */
  refresh(): Promise<void> {
    this.reading ??= (async () => {
      const day = this.today();
      const before = this.recordedSinceRead;
      const since = new Map<string, number>();
      this.recordedSinceRead = since;
      try {
        const stored = await carrierUsageOn(this.db, day);
        if (this.recordedSinceRead !== since) return; // the day changed meanwhile
        this.stored = stored;
        this.day = day;
      } catch (err) {
        if (this.recordedSinceRead === since) for (const [carrier, parts] of before) add(since, carrier, parts);
        this.logger?.warn({ err }, 'dispatcher: reading the carriers daily counts failed; using the last read');
      }
    })().finally(() => (this.reading = undefined));
    return this.reading;
  }

  /** The day counted now. */
  today(): string {
    const now = this.clock();
    // The calendar is consulted only when the day may have changed (it costs more than the rest of a check).
    if (now >= this.dayStart && now < this.dayEnd) return this.day;
    const day = calendarDay(now, this.timeZone);
    const p = zonedParts(now, this.timeZone);
    this.dayStart = fromZoned({ ...p, hour: 0, minute: 0, second: 0 }, this.timeZone);
    this.dayEnd = fromZoned({ ...p, day: p.day + 1, hour: 0, minute: 0, second: 0 }, this.timeZone);
    if (day !== this.day) {
      // A new day: nothing counted on it yet but what this node holds.
      this.day = day;
      this.stored = new Map();
      this.recordedSinceRead = new Map();
    }
    return day;
  }

  /** Parts counted against a carrier today, as far as this node knows. */
  used(carrier: string): number {
    this.today();
    return (
      (this.stored.get(carrier) ?? 0) + (this.recordedSinceRead.get(carrier) ?? 0) + (this.reserved.get(carrier) ?? 0)
    );
  }

  /** The carrier's daily cap in parts; undefined when it has none. */
  dailyCap(carrier: string): number | undefined {
    return this.caps.get(carrier)?.dailyCap;
  }

  /** Whether the carrier has a cap and today's parts leave no room for this many more. */
  full(carrier: string, parts = 1): boolean {
    const cap = this.caps.get(carrier)?.dailyCap;
    return cap !== undefined && this.used(carrier) + parts > cap;
  }

  /** Holds room for a message's parts on a carrier before it is submitted; false when they do not fit. */
  reserve(carrier: string, parts: number): boolean {
    if (this.full(carrier, parts)) return false;
    add(this.reserved, carrier, parts);
    return true;
  }

  /** Gives back room held for a message the carrier did not take. */
  release(carrier: string, parts: number): void {
    add(this.reserved, carrier, -parts);
  }

  /** A taken message's parts were written to the store (`ok`), or not: no longer held. */
  recorded(carrier: string, parts: number, ok: boolean): void {
    add(this.reserved, carrier, -parts);
    if (ok) add(this.recordedSinceRead, carrier, parts);
  }

  /** What one part of this carrier costs, thousandths of an agora; undefined when it has no price. */
  costPerPartMilli(carrier: string): number | undefined {
    const limits = this.caps.get(carrier);
    return limits && costPerPartMilli(limits);
  }
}

function add(counts: Map<string, number>, carrier: string, n: number): void {
  const next = (counts.get(carrier) ?? 0) + n;
  if (next === 0) counts.delete(carrier);
  else counts.set(carrier, next);
}

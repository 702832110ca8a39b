// The log lines of a carrier's incidents (docs/logs.md): `carrier.down` when it has had no bind able to submit
// for longer than its grace time, `carrier.throttled` when it has pushed back for longer than that, each once per
// episode at warn, and `carrier.up` / `carrier.unthrottled` at info when such an episode ends.
import type { Logger } from '../logger.ts';
import type { CarrierHealth } from './carrier-health.ts';

interface Episodes {
  /** The down episode logged (its start), if any. */
  down?: number;
  throttled?: number;
}

/** Watches health reports for incidents longer than each carrier's grace time and logs each once. */
export class CarrierIncidents {
  private readonly logged = new Map<string, Episodes>();

  constructor(
    private readonly logger: Pick<Logger, 'warn' | 'info'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Looks at the carriers' reports now (called every second or so). */
  check(reports: CarrierHealth[]): void {
    const now = this.clock();
    for (const r of reports) {
      const seen = this.logged.get(r.carrier) ?? {};
      const lastError = r.lastError ? { last_error: r.lastError.text, last_error_at: r.lastError.at } : {};
      if (r.downSince !== undefined && seen.down === undefined && now - r.downSince >= r.graceMs) {
        seen.down = r.downSince;
        this.logger.warn(
          {
            event: 'carrier.down',
            carrier: r.carrier,
            down_since: r.downSince,
            down_ms: now - r.downSince,
            grace_ms: r.graceMs,
            binds_wanted: r.bindsWanted,
            held: r.held,
            ...lastError,
          },
          'carrier down for longer than its grace time',
        );
      } else if (r.downSince === undefined && seen.down !== undefined) {
        this.logger.info(
          { event: 'carrier.up', carrier: r.carrier, down_ms: now - seen.down, binds_up: r.bindsUp },
          'carrier up again',
        );
        seen.down = undefined;
      }
      if (r.throttledSince !== undefined && seen.throttled === undefined && now - r.throttledSince >= r.graceMs) {
        seen.throttled = r.throttledSince;
        this.logger.warn(
          {
            event: 'carrier.throttled',
            carrier: r.carrier,
            throttled_since: r.throttledSince,
            throttled_ms: now - r.throttledSince,
            grace_ms: r.graceMs,
            held: r.held,
            ...lastError,
          },
          'carrier throttling us for longer than its grace time',
        );
      } else if (r.throttledSince === undefined && seen.throttled !== undefined) {
        this.logger.info(
          { event: 'carrier.unthrottled', carrier: r.carrier, throttled_ms: now - seen.throttled },
          'carrier no longer throttling',
        );
        seen.throttled = undefined;
      }
      this.logged.set(r.carrier, seen);
    }
    // A carrier removed from the configuration has no episode left.
    const names = new Set(reports.map((r) => r.carrier));
    for (const name of this.logged.keys()) if (!names.has(name)) this.logged.delete(name);
  }
}

// The retention sweep as a service component: at start and every `intervalMs` (an hour), removes what is older
// than YONA_RETENTION_DAYS (store/retention.ts); with 0 (the default) it keeps everything. On PostgreSQL it also
// keeps the time partitions (store/partitions.ts): months created ahead, and whole months dropped once past
// YONA_RETENTION_DAYS (messages, carrier ids) or YONA_PUSH_RETENTION (push events). Runs on the node leading
// the scheduler (cli/serve.ts). Idempotency keys go a day after their first request, whatever the retention.
import type { Component, ComponentHost } from '../component.ts';
import { dropExpiredMonths, ensureMonthPartitions } from '../store/partitions.ts';
import { purgeOlderThan } from '../store/retention.ts';
import { IDEMPOTENCY_WINDOW_MS, purgeIdempotencyKeys } from '../store/idempotency.ts';

const DAY_MS = 86_400_000;

export function retentionComponent(options: { intervalMs?: number } = {}): Component {
  const intervalMs = options.intervalMs ?? 3_600_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let service: ComponentHost | undefined;

  const run = (): void => {
    const s = service;
    if (!s || running) return;
    const retentionDays = s.config.retentionDays;
    const now = s.clock();
    const cutoff = retentionDays > 0 ? now - retentionDays * DAY_MS : undefined;
    running = (async () => {
      await sweepIdempotencyKeys(s, now);
      await keepPartitions(s, now, cutoff);
      if (cutoff === undefined) return;
      try {
        const purged = await purgeOlderThan(s.store.db, cutoff);
        if (purged.campaigns + purged.inbound > 0)
          s.logger.info({ ...purged, retentionDays }, 'retention: removed what is past the retention period');
      } catch (err) {
        s.logger.error({ err }, 'retention: removing old rows failed');
      }
    })().finally(() => (running = undefined));
  };

  return {
    name: 'retention',
    async start(s) {
      service = s;
      timer = setInterval(run, intervalMs);
      timer.unref();
      run();
    },
    async stop() {
      service = undefined;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}

// Months created ahead of `now`; months past `cutoff` (messages and carrier ids; none: kept) or past
// YONA_PUSH_RETENTION (push events) dropped.
async function keepPartitions(s: ComponentHost, now: number, cutoff: number | undefined): Promise<void> {
  try {
    const created = await ensureMonthPartitions(s.store.db, now);
    if (created.length > 0) s.logger.info({ created }, 'partitions: months created ahead');
    const dropped = await dropExpiredMonths(s.store.db, {
      messages: cutoff,
      carrier_message_ids: cutoff,
      push_events: now - s.config.push.retentionMs,
    });
    if (dropped.length > 0) s.logger.info({ dropped }, 'partitions: months past retention dropped');
  } catch (err) {
    s.logger.error({ err }, 'partitions: keeping the monthly partitions failed');
  }
}

// Idempotency keys past their window: a retry after it runs as a new request.
async function sweepIdempotencyKeys(s: ComponentHost, now: number): Promise<void> {
  try {
    const removed = await purgeIdempotencyKeys(s.store.db, now - IDEMPOTENCY_WINDOW_MS);
    if (removed > 0) s.logger.debug({ removed }, 'retention: idempotency keys past their window removed');
  } catch (err) {
    s.logger.error({ err }, 'retention: removing old idempotency keys failed');
  }
}

// The retention sweep as a service component: at start and every `intervalMs` (an hour), removes what is older
// than YONA_RETENTION_DAYS (store/retention.ts); with 0 (the default) it keeps everything. On PostgreSQL it also
// keeps the time partitions (store/partitions.ts): months created ahead, and whole months dropped once past
// YONA_RETENTION_DAYS (messages, carrier ids) or YONA_PUSH_RETENTION (push events). Runs on the node leading
// the scheduler (cli/serve.ts).
import type { Component, Service } from '../service.ts';
import { dropExpiredMonths, ensureMonthPartitions } from '../store/partitions.ts';
import { purgeOlderThan } from '../store/retention.ts';

const DAY_MS = 86_400_000;

export function retentionComponent(options: { intervalMs?: number } = {}): Component {
  const intervalMs = options.intervalMs ?? 3_600_000;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let service: Service | undefined;

  const run = (): void => {
    const s = service;
    if (!s || running) return;
    const retentionDays = s.config.retentionDays;
    running = (async () => {
      if (s.store.dialect === 'postgres') await keepPartitions(s);
      if (retentionDays === 0) return;
      try {
        const purged = await purgeOlderThan(s.store.db, s.clock() - retentionDays * DAY_MS);
        if (purged.campaigns + purged.inbound > 0) s.logger.info({ ...purged, retentionDays }, 'retention: removed what is past the retention period');
      } catch (err) {
        s.logger.error({ err }, 'retention: removing old rows failed');
      }
    })().finally(() => (running = undefined));
  };

  return {
    name: 'retention',
    async start(s) {
      if (s.config.retentionDays === 0 && s.store.dialect !== 'postgres') return;
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

async function keepPartitions(s: Service): Promise<void> {
  const now = s.clock();
  try {
    const created = await ensureMonthPartitions(s.store.db, now);
    if (created.length > 0) s.logger.info({ created }, 'partitions: months created ahead');
    const messagesCutoff = s.config.retentionDays > 0 ? now - s.config.retentionDays * DAY_MS : undefined;
    const dropped = await dropExpiredMonths(s.store.db, {
      messages: messagesCutoff, carrier_message_ids: messagesCutoff, push_events: now - s.config.push.retentionMs,
    });
    if (dropped.length > 0) s.logger.info({ dropped }, 'partitions: months past retention dropped');
  } catch (err) {
    s.logger.error({ err }, 'partitions: keeping the monthly partitions failed');
  }
}

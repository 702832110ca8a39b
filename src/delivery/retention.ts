// The retention sweep as a service component: at start and every `intervalMs` (an hour), removes what is older
// than YONA_RETENTION_DAYS (store/retention.ts); with 0 (the default) it keeps everything. Runs on the node
// leading the scheduler (cli/serve.ts).
import type { Component, Service } from '../service.ts';
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
      if (s.config.retentionDays === 0) return;
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

// WhatsApp's sending workers on a node: the templates of its WhatsApp carriers synced from their provider every
// minute (and at start), and the SMS fallbacks settled as
// they fall due (every second by default). The carriers include the bundled Cloud API simulator's while this node
// runs it, so a fresh `yona serve` lists and sends the simulator's shipped templates with no step of its own; once
// it stops (a carrier was configured), its templates are removed.
import { carrierChannel } from '../carriers/index.ts';
import type { CarrierConfigBase } from '../carriers/types.ts';
import type { Component, ComponentHost } from '../component.ts';
import { sealingKey } from '../secret-key.ts';
import { inTransaction } from '../store/engine/db.ts';
import { removeTemplates, replaceTemplates } from '../store/whatsapp-templates.ts';
import { loadCarrierSetup } from './carrier-setup.ts';
import { runDueFallbacks } from './whatsapp-fallbacks.ts';
import { fetchTemplates, templateSourceOf, type TemplateSource } from './whatsapp-templates-sync.ts';

export interface WhatsappSendingOptions {
  /** The template sources (default: the configured carriers of the whatsapp channel). */
  sources?: () => Promise<TemplateSource[]> | TemplateSource[];
  /** The carriers of the bundled simulators this process runs now (their templates are synced too). */
  bundled?: () => readonly CarrierConfigBase[];
  syncIntervalMs?: number;
  fallbackIntervalMs?: number;
}

/** The template sources of the configured WhatsApp carriers and of the bundled ones running now. */
async function configuredSources(
  host: ComponentHost,
  bundled: readonly CarrierConfigBase[],
): Promise<TemplateSource[]> {
  const setup = await loadCarrierSetup(host.store.db, host.config.carriersFile, () => sealingKey(host.config));
  return [...setup.carriers, ...bundled]
    .filter((c) => carrierChannel(c.protocol) === 'whatsapp')
    .flatMap((c) => templateSourceOf(c) ?? []);
}

/** Syncs every source's templates once; a source that fails keeps its templates as they were (logged). */
export async function syncTemplates(host: ComponentHost, sources: readonly TemplateSource[]): Promise<void> {
  for (const source of sources) {
    try {
      const templates = await fetchTemplates(source);
      await inTransaction(host.store.db, (db) =>
        replaceTemplates(db, { name: source.carrier, businessNumber: source.businessNumber }, templates, host.clock()),
      );
    } catch (err) {
      host.logger.warn(
        { event: 'whatsapp.templates.sync_failed', carrier: source.carrier, error: (err as Error).message },
        'WhatsApp templates not synced; the last synced ones stay in use',
      );
    }
  }
}

export function whatsappSendingComponent(options: WhatsappSendingOptions = {}): Component & {
  syncNow(): Promise<void>;
} {
  let host: ComponentHost | undefined;
  let syncTimer: NodeJS.Timeout | undefined;
  let fallbackTimer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  /** The bundled carriers whose templates this node synced, removed once they no longer run. */
  const bundledSynced = new Set<string>();
  const sources = async () => {
    if (options.sources) return options.sources();
    const bundled = options.bundled?.() ?? [];
    const all = await configuredSources(host as ComponentHost, bundled);
    const running = new Set(all.map((s) => s.carrier));
    for (const name of bundledSynced)
      if (!running.has(name)) {
        await removeTemplates((host as ComponentHost).store.db, name);
        bundledSynced.delete(name);
      }
    for (const c of bundled) if (running.has(c.name)) bundledSynced.add(c.name);
    return all;
  };
  const syncNow = async () => {
    if (!host || stopped) return;
    await syncTemplates(host, await sources());
  };
  const fallbacks = async () => {
    if (!host || stopped) return;
    try {
      await runDueFallbacks({
        store: host.store,
        logger: host.logger,
        signals: host.signals,
        clock: host.clock,
        intlPriceAgorot: host.config.sending.intlPriceAgorot,
      });
    } catch (err) {
      host.logger.error({ err, event: 'whatsapp.fallback.error' }, 'SMS fallbacks: a round failed');
    }
  };
  const every = (ms: number, work: () => Promise<void>) => {
    const t = setInterval(() => {
      running = running.then(work, work);
    }, ms);
    t.unref();
    return t;
  };
  return {
    name: 'whatsapp-sending',
    syncNow,
    async start(h) {
      host = h;
      await syncNow().catch((err) =>
        h.logger.warn({ err, event: 'whatsapp.templates.sync_failed' }, 'WhatsApp templates not synced at start'),
      );
      syncTimer = every(options.syncIntervalMs ?? 60_000, () => syncNow().catch(() => {}));
      fallbackTimer = every(options.fallbackIntervalMs ?? 1000, fallbacks);
    },
    async stop() {
      stopped = true;
      clearInterval(syncTimer);
      clearInterval(fallbackTimer);
      await running.catch(() => {});
    },
  };
}

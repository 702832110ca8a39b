// Shared setup for the delivery suites: an SMSC simulator in the test process, a service whose carriers
// component binds to it, accounts with a verified sender, report windows and polling with a deadline.
import pg from 'pg';
import { SmscSimulator, type SimulatorOptions } from '../../src/carriers/simulator/index.ts';
import { CARRIER_TIMER_DEFAULTS } from '../../src/carriers/smpp/settings.ts';
import type { CarrierSetup } from '../../src/delivery/carrier-setup.ts';
import type { SmppCarrierConfig } from '../../src/carriers/smpp/connector.ts';
import { formatShort } from '../../src/domain/dates.ts';
import { carriersComponent, type CarriersRuntime } from '../../src/delivery/carriers.ts';
import type { Component } from '../../src/service.ts';
import type { DeliverySettings } from '../../src/delivery/delivery-settings.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import type { StoreTarget } from '../helpers/stores.ts';
import { newSender, type Sender } from '../operations/send-helpers.ts';
import { loadConfig } from '../../src/config.ts';
import type { Logger } from '../../src/logger.ts';

export { newSender, type Sender };

/** Carrier settings for a loopback simulator, with short timers. */
export function simCarrier(port: number, over: Partial<SmppCarrierConfig> = {}): SmppCarrierConfig {
  return {
    ...CARRIER_TIMER_DEFAULTS,
    name: 'sim',
    host: '127.0.0.1',
    port,
    systemId: 'yona',
    password: 'secret',
    bindMode: 'transceiver',
    binds: 1,
    windowSize: 50,
    maxSubmitsPerSecond: 0,
    tls: false,
    enquireLinkMs: 1000,
    responseTimeoutMs: 2000,
    reconnectBaseMs: 50,
    reconnectMaxMs: 400,
    queueTimeoutMs: 10_000,
    ...over,
  };
}

export interface DeliveryHarness {
  t: TestService;
  simulator: SmscSimulator;
  runtime(): CarriersRuntime;
  close(): Promise<void>;
}

/** A simulator plus a service with the carriers component bound to it (and the given components, if any). */
export async function startDelivery(
  target: StoreTarget,
  options: {
    sim?: SimulatorOptions;
    carrier?: Partial<SmppCarrierConfig>;
    settings?: Partial<DeliverySettings>;
    setup?: (port: number) => CarrierSetup;
    clock?: () => number;
    components?: Component[];
    env?: Record<string, string>;
    logger?: Logger;
  } = {},
): Promise<DeliveryHarness> {
  const simulator = new SmscSimulator({ systemId: 'yona', password: 'secret', receiptDelayMs: 20, ...options.sim });
  const port = await simulator.start(0);
  const setup = options.setup ? options.setup(port) : { carriers: [simCarrier(port, options.carrier)], routes: [] };
  const component = carriersComponent({ setup, settings: { pollMs: 20, ...options.settings }, config: loadConfig({}) });
  const t = await startTestService(target, {
    components: [component, ...(options.components ?? [])],
    clock: options.clock,
    env: options.env,
    logger: options.logger,
  });
  settleOnClose(t);
  return {
    t,
    simulator,
    runtime: () => component.runtime()!,
    async close() {
      await t.close();
      await simulator.stop();
    },
  };
}

/**
 * pg's pool resolves end() before its sockets are closed; the harness then drops the database WITH (FORCE),
 * and a backend still exiting is killed, which surfaces as an uncaught 'terminating connection' error. So
 * closing the store here also waits until the server shows no backend on the test database.
 */
export function settleOnClose(t: TestService): void {
  const url = t.config.databaseUrl;
  if (!url) return;
  const store = t.service.store;
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await waitForNoBackends(url);
  };
}

/** Waits (up to 2 s) until PostgreSQL shows no backend connected to the database of `url`. */
export async function waitForNoBackends(url: string | undefined): Promise<void> {
  if (!url) return;
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]*$/, '/postgres') });
  await admin.connect();
  try {
    const name = new URL(url).pathname.slice(1);
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
      if (rows[0].n === 0) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await admin.end();
  }
}

/** A dd/mm/yy hh:mm window around now (one hour each side), as from/to fields. */
export function windowAroundNow(now = Date.now(), zone = 'Asia/Jerusalem'): { from: string; to: string } {
  return { from: formatShort(now - 3600_000, zone), to: formatShort(now + 3600_000, zone) };
}

/** Polls `check` until it returns a truthy value, failing after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  timeoutMs = 8000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The dlr reports of external ids, by external id. */
export async function dlrById(
  s: Sender,
  ids: string[],
  window = windowAroundNow(),
): Promise<Map<string, Record<string, string>>> {
  const reply = await s.call('dlr', { transactions: { external_id: ids }, ...window });
  if (reply.status !== 0) throw new Error(`dlr answered ${reply.status}: ${reply.message}`);
  return new Map((reply.transactions as Array<Record<string, string>>).map((r) => [r.external_id, r]));
}

/** Counts of a campaign's messages per state. */
export async function stateCounts(t: TestService, campaignId: number): Promise<Record<string, number>> {
  const rows = await t.service.store.db
    .selectFrom('messages')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('campaign_id', '=', campaignId)
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
}

/** `count` distinct Israeli mobiles (972 5x xxx xxxx) from a base, avoiding the simulator's outcome suffixes. */
export function mobiles(count: number, base = 520_000_000): string[] {
  const out: string[] = [];
  for (let i = 0; out.length < count; i++) {
    const national = String(base + i * 10 + 9); // no outcome rule ends in 9
    out.push(`0${national}`);
  }
  return out;
}

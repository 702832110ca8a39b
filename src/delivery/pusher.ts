// The pusher: delivers push events to registered URLs, one form POST per event. A scan finds registrations
// with due events; each gets a lane that claims its events under a lease and keeps up to `concurrency`
// requests in flight (1 while it is failing), so a slow receiver never holds up another. Results are
// recorded in batches; a failure halts the lane until the registration's backoff ends (see store/push-queue.ts).
import type dns from 'node:dns';
import type { EventEmitter } from 'node:events';
import type { Agent } from 'undici';
import { encodePush } from '../domain/push-fields.ts';
import type { Config } from '../config.ts';
import type { PushSettings } from '../domain/push-settings.ts';
import type { Component, ComponentHost } from '../component.ts';
import {
  claimPushEvents,
  prunePushData,
  readyRegistrations,
  recordPushResults,
  type ClaimedPushEvent,
  type PushResult,
  type PushTarget,
  type RegistrationOutcome,
} from '../store/push-queue.ts';
import { findAccountById } from '../store/accounts.ts';
import { formatIso } from '../domain/dates.ts';
import { createPushAgent, postForm, prepareTarget, pushHeaders, type PreparedTarget } from './push-http.ts';
import { openAtRest } from '../domain/sealed.ts';
import { sealingKey } from '../secret-key.ts';
import { registerPushMetrics } from './push-metrics.ts';

/** Options of createPusher (tests and embedders). */
export interface PusherOptions {
  /** YONA_PUSH_* from this configuration instead of the service's. */
  config?: Config;
  /** The resolver behind the public-only lookup (tests simulate a name resolving to loopback). */
  resolve?: typeof dns.lookup;
  /** Events claimed ahead of sending, across lanes (default 4096). */
  maxBuffered?: number;
}

// The host of a push URL (never its path, query or credentials).
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

interface Lane {
  target: PushTarget;
  /** The target's signing secret opened (null: unsigned). */
  secret: string | null;
  prepared: PreparedTarget;
  queue: ClaimedPushEvent[];
  inFlight: number;
  claiming: boolean;
  /** The last claim came back short: wait for the next scan. */
  drained: boolean;
  /** Sequence number of the failure that halted the lane, until a flush has recorded it; 0 when running. */
  haltSeq: number;
}

/** Events claimed but not yet sent, across lanes: bounds the read-ahead, never a lane's first `concurrency` events. */
const MAX_BUFFERED = 4096;
/** A healthy lane claims up to concurrency x this many events at once, when fewer than concurrency x REFILL_BELOW wait. */
const CLAIM_BATCHES = 16;
const REFILL_BELOW = 4;
/** Results are recorded when this many wait, or FLUSH_DELAY_MS after the first. */
const FLUSH_BATCH = 256;
const FLUSH_DELAY_MS = 5;

class Pusher implements Component {
  readonly name = 'pusher';
  private service!: ComponentHost;
  private settings!: PushSettings;
  private agent!: Agent;
  /** For accounts whose push URLs may reach private addresses (`yona admin push allow-private`): made when first needed. */
  private privateAgent: Agent | undefined;
  private readonly lanes = new Map<number, Lane>();
  private results: (PushResult & { seq: number })[] = [];
  private seq = 0;
  private buffered = 0;
  private readonly inFlight = new Set<Promise<void>>();
  /** Abort handles of the requests in flight (a shutdown cuts them after a grace period). */
  private readonly requests = new Set<EventEmitter>();
  private stopped = false;
  private scanning: Promise<void> | undefined;
  private scanQueued = false;
  private flushing: Promise<void> | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private nextWake = Infinity;
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  /** Failed push requests since start (yona_push_failures_total). */
  private failures = 0;

  constructor(private readonly options: PusherOptions) {}

  async start(service: ComponentHost): Promise<void> {
    this.service = service;
    this.settings = (this.options.config ?? service.config).push;
    this.agent = createPushAgent(this.settings, this.options.resolve);
    registerPushMetrics(
      service.metrics.registry,
      service.node.name,
      service.store.db,
      () => this.failures,
      service.clock,
    );
    this.unsubscribe = service.signals.subscribe('push', () => this.requestScan());
    this.timers.push(setInterval(() => this.requestScan(), this.settings.pollMs));
    this.timers.push(setInterval(() => void this.prune(), 60_000));
    this.requestScan();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearInterval(t);
    clearTimeout(this.wakeTimer);
    await this.scanning;
    const grace = setTimeout(() => {
      for (const r of this.requests) r.emit('abort');
    }, 1000);
    while (this.inFlight.size > 0 || [...this.lanes.values()].some((l) => l.claiming)) {
      await Promise.allSettled([...this.inFlight]);
      await new Promise((r) => setTimeout(r, 5));
    }
    clearTimeout(grace);
    for (const lane of this.lanes.values()) this.releaseQueue(lane);
    clearTimeout(this.flushTimer);
    await this.flushing;
    while (this.results.length > 0) await this.flush();
    await this.agent.close().catch(() => {});
    await this.privateAgent?.close().catch(() => {});
  }

  private get db() {
    return this.service.store.db;
  }

  /** Looks for registrations with due events now (coalesced: one scan at a time, one queued). */
  private requestScan(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.scanQueued = true;
      return;
    }
    this.scanning = this.scan().finally(() => {
      this.scanning = undefined;
      if (this.scanQueued && !this.stopped) {
        this.scanQueued = false;
        setImmediate(() => this.requestScan());
      }
    });
  }

  private async scan(): Promise<void> {
    try {
      const ready = await readyRegistrations(this.db, this.service.clock());
      const seen = new Set<number>();
      for (const target of ready) {
        const secret = this.signingSecret(target);
        // A secret this node cannot open: its events stay pending here (a node with the right key pushes them).
        if (secret === undefined) continue;
        seen.add(target.id);
        let lane = this.lanes.get(target.id);
        if (!lane) {
          lane = {
            target,
            secret,
            prepared: prepareTarget(target.url, this.allowsPrivate(target)),
            queue: [],
            inFlight: 0,
            claiming: false,
            drained: false,
            haltSeq: 0,
          };
          this.lanes.set(target.id, lane);
        } else if (!lane.haltSeq) {
          if (target.allowPrivate !== lane.target.allowPrivate)
            lane.prepared = prepareTarget(target.url, this.allowsPrivate(target));
          lane.target = target;
          lane.secret = secret;
        }
        lane.drained = false;
        this.pump(lane);
      }
      for (const [id, lane] of this.lanes) {
        if (
          !seen.has(id) &&
          lane.drained &&
          !lane.haltSeq &&
          !lane.claiming &&
          lane.inFlight === 0 &&
          lane.queue.length === 0
        )
          this.lanes.delete(id);
      }
    } catch (err) {
      this.service.logger.error({ err }, 'push scan failed');
    }
  }

  // Signing secrets opened, by their sealed text (false: sealed under another key than this node's).
  private readonly opened = new Map<string, string | false>();

  /**
   * The clear signing secret of a registration: null when its pushes go unsigned, undefined when it is sealed
   * with another secret key than this node's (logged once per registration and secret; its pushes are held).
   */
  private signingSecret(target: PushTarget): string | null | undefined {
    if (target.secret === null) return null;
    let opened = this.opened.get(target.secret);
    if (opened === undefined) {
      try {
        opened = openAtRest(sealingKey(this.service.config), target.secret);
      } catch {
        opened = false;
        void this.username(target.accountId).then((account) =>
          this.service.logger.error(
            { event: 'push.secret_unopened', account, registration: target.id },
            "push signing secret sealed with another secret key than this node's (YONA_SECRET_KEY or secret.key in the data dir): its pushes are held on this node",
          ),
        );
      }
      if (this.opened.size >= 10_000) this.opened.clear();
      this.opened.set(target.secret, opened);
    }
    return opened === false ? undefined : opened;
  }

  /** Sends what the lane may send now and claims more when it runs low. */
  private pump(lane: Lane): void {
    if (this.stopped || lane.haltSeq) return;
    const failing = lane.target.consecutiveFailures > 0;
    const cap = failing ? 1 : this.settings.concurrency;
    while (lane.inFlight < cap && lane.queue.length > 0) this.send(lane, lane.queue.shift()!);
    // Refill when the queue runs low, in batches (a claim per event costs more than the push it feeds). Past the
    // global read-ahead bound a lane still claims enough to fill its own requests, so slow receivers holding
    // their claimed events never starve another registration.
    if (lane.queue.length >= cap * REFILL_BELOW || lane.claiming || lane.drained) return;
    const readAhead = this.buffered >= (this.options.maxBuffered ?? MAX_BUFFERED) ? 1 : CLAIM_BATCHES;
    const want = (failing ? 1 : cap * readAhead) - lane.queue.length - lane.inFlight;
    if (want > 0) void this.claim(lane, want);
  }

  private async claim(lane: Lane, want: number): Promise<void> {
    lane.claiming = true;
    try {
      const now = this.service.clock();
      // Long enough for the whole batch to go out at `concurrency` requests that each take the full timeout.
      const lease = now + this.settings.requestTimeoutMs * (Math.ceil(want / this.settings.concurrency) + 2);
      const events = await claimPushEvents(this.db, lane.target.id, want, now, lease);
      this.buffered += events.length;
      lane.queue.push(...events);
      if (events.length < want) lane.drained = true;
      if (lane.haltSeq || this.stopped) this.releaseQueue(lane);
    } catch (err) {
      lane.drained = true;
      this.service.logger.error({ err, registration: lane.target.id }, 'push claim failed');
    } finally {
      lane.claiming = false;
    }
    this.pump(lane);
  }

  private send(lane: Lane, event: ClaimedPushEvent): void {
    lane.inFlight++;
    const done: Promise<void> = this.deliver(lane, event).finally(() => {
      lane.inFlight--;
      this.buffered--;
      this.inFlight.delete(done);
      this.pump(lane);
    });
    this.inFlight.add(done);
  }

  private allowsPrivate(target: PushTarget): boolean {
    return this.settings.allowPrivate || target.allowPrivate;
  }

  // The server-wide agent (public addresses only, at every connect, unless YONA_PUSH_ALLOW_PRIVATE), or for an
  // account allowed private addresses an agent whose lookup lets them through.
  private agentFor(target: PushTarget): Agent {
    if (this.settings.allowPrivate || !target.allowPrivate) return this.agent;
    this.privateAgent ??= createPushAgent({ ...this.settings, allowPrivate: true }, this.options.resolve);
    return this.privateAgent;
  }

  private async deliver(lane: Lane, event: ClaimedPushEvent): Promise<void> {
    const startedAt = this.service.clock();
    const t0 = performance.now();
    const { body, contentType } = encodePush(lane.target.type, JSON.parse(event.payload) as Record<string, string>);
    const headers = pushHeaders(event.id, body, lane.secret, contentType);
    const outcome = await postForm(
      this.agentFor(lane.target),
      lane.prepared,
      body,
      headers,
      this.settings.requestTimeoutMs,
      this.requests,
    );
    const ok = outcome.status === 200;
    const kind = ok ? 'delivered' : this.stopped && outcome.status === null ? 'released' : 'failed';
    const seq = this.addResult({
      eventId: event.id,
      registrationId: lane.target.id,
      kind,
      startedAt,
      finishedAt: this.service.clock(),
      httpStatus: outcome.status,
      latencyMs: Math.round(performance.now() - t0),
      error: outcome.error,
    });
    if (ok) {
      lane.target.consecutiveFailures = 0;
    } else if (kind === 'failed' && !lane.haltSeq) {
      lane.haltSeq = seq;
      this.releaseQueue(lane);
    }
  }

  /** Gives the lane's unsent events back (recorded as released with the next flush). */
  private releaseQueue(lane: Lane): void {
    const now = this.service.clock();
    for (const e of lane.queue.splice(0)) {
      this.buffered--;
      this.addResult({
        eventId: e.id,
        registrationId: lane.target.id,
        kind: 'released',
        startedAt: now,
        finishedAt: now,
        httpStatus: null,
        latencyMs: 0,
        error: null,
      });
    }
  }

  private addResult(result: PushResult): number {
    const seq = ++this.seq;
    this.results.push({ ...result, seq });
    if (this.results.length >= FLUSH_BATCH) void this.flush();
    else if (!this.flushTimer) this.flushTimer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
    return seq;
  }

  /** Records buffered results (one flush at a time); lanes resume or back off from what it decided. */
  private async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.flushing) return this.flushing.then(() => (this.results.length ? this.flush() : undefined));
    if (this.results.length === 0) return;
    const batch = this.results;
    this.results = [];
    this.flushing = this.record(batch).finally(() => {
      this.flushing = undefined;
      if (this.results.length > 0 && !this.flushTimer) this.flushTimer = setTimeout(() => void this.flush(), 1);
    });
    return this.flushing;
  }

  private async record(batch: (PushResult & { seq: number })[]): Promise<void> {
    const now = this.service.clock();
    let outcomes;
    try {
      outcomes = await recordPushResults(this.db, batch, this.settings, now);
    } catch (err) {
      this.service.logger.error({ err, results: batch.length }, 'recording push results failed; retrying');
      // Unrecorded results are not lost work: their events stay leased and are pushed again after the lease.
      if (this.stopped) return;
      this.results = batch.concat(this.results);
      if (!this.stopped) await new Promise((r) => setTimeout(r, 1000));
      return;
    }
    const maxSeq = batch[batch.length - 1].seq;
    const touched = new Set(batch.map((r) => r.registrationId));
    await this.logFailures(batch, outcomes);
    for (const [regId, outcome] of outcomes) {
      const lane = this.lanes.get(regId);
      if (lane) lane.target.consecutiveFailures = outcome.consecutiveFailures;
      if (outcome.state === 'registered' && outcome.retryAt > now) this.wakeAt(outcome.retryAt);
    }
    for (const regId of touched) {
      const lane = this.lanes.get(regId);
      if (!lane) continue;
      if (lane.haltSeq && lane.haltSeq <= maxSeq) {
        lane.haltSeq = 0;
        lane.drained = true; // resumes when a scan finds its events due again (after the backoff)
        if ((outcomes.get(regId)?.retryAt ?? 0) <= now) this.requestScan();
      } else if (batch.some((r) => r.registrationId === regId && r.kind === 'delivered')) {
        lane.drained = false; // events queued behind a delivered one (same order key) may be claimable now
      }
      this.pump(lane);
    }
  }

  /**
   * docs/logs.md: push.failed per failed attempt (account, registration, URL host, HTTP status or network
   * error, attempt, next retry) and push.disabled when a registration is disabled.
   */
  private async logFailures(batch: PushResult[], outcomes: Map<number, RegistrationOutcome>): Promise<void> {
    for (const r of batch) {
      if (r.kind !== 'failed') continue;
      this.failures++;
      const lane = this.lanes.get(r.registrationId);
      const outcome = outcomes.get(r.registrationId);
      const where = {
        account: lane ? await this.username(lane.target.accountId) : undefined,
        registration: r.registrationId,
        host: lane ? hostOf(lane.target.url) : undefined,
      };
      const disabled = outcome?.state === 'disabled';
      this.service.logger.info(
        {
          event: 'push.failed',
          ...where,
          http_status: r.httpStatus ?? undefined,
          error: r.error ?? undefined,
          attempt: outcome?.consecutiveFailures,
          next_retry:
            disabled || !outcome
              ? undefined
              : formatIso(Math.max(outcome.retryAt, r.finishedAt), this.service.config.defaultTimeZone),
        },
        'push failed',
      );
      if (disabled) {
        this.service.logger.warn(
          { event: 'push.disabled', ...where, failures: outcome.consecutiveFailures },
          'push registration disabled after repeated failures',
        );
      }
    }
  }

  // Account names by id, for the log (an account's name never changes).
  private readonly usernames = new Map<number, string>();
  private async username(accountId: number): Promise<string | undefined> {
    if (!this.usernames.has(accountId)) {
      const account = await findAccountById(this.db, accountId).catch(() => undefined);
      if (account) this.usernames.set(accountId, account.username);
    }
    return this.usernames.get(accountId);
  }

  /** Schedules a scan at `at` (the earliest pending backoff end). */
  private wakeAt(at: number): void {
    if (this.stopped || at >= this.nextWake) return;
    clearTimeout(this.wakeTimer);
    this.nextWake = at;
    this.wakeTimer = setTimeout(
      () => {
        this.nextWake = Infinity;
        this.requestScan();
      },
      Math.max(1, at - this.service.clock() + 2),
    ); // +2: timers may fire a little early
  }

  private async prune(): Promise<void> {
    try {
      await prunePushData(this.db, this.service.clock() - this.settings.retentionMs);
    } catch (err) {
      this.service.logger.error({ err }, 'push pruning failed');
    }
  }
}

/** The pusher component (`yona serve` runs one; several processes may share a PostgreSQL store). */
export function createPusher(options: PusherOptions = {}): Component {
  return new Pusher(options);
}

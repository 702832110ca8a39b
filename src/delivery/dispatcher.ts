// The dispatcher: claims due messages in batches under a lease, drops blocked recipients (201, refunded),
// routes each message (routing.ts: its route's carriers in order, those bound and not throttled beyond their
// backlog first; a carrier that refuses it for its own reasons hands it to the next), submits them concurrently
// (the connector's windows bound what is in flight), and records the outcomes as they arrive, in small groups (batch-recorder.ts):
// submitted (-1), retried with exponential backoff, or failed (refunded). Wakes on the 'dispatch' signal and
// polls otherwise. One more lane claims only priority messages (one-time codes): it is never behind a
// campaign's batch, and its messages take the carrier's next free permit.
import type { Router } from './routing.ts';
import type { Carrier, SubmitResult } from '../carriers/types.ts';
import { fillCode } from '../domain/otp.ts';
import { unseal } from '../domain/sealed.ts';
import type { Logger } from '../logger.ts';
import { FifoPermits } from '../support/permits.ts';
import type { LocalSignals } from '../signals.ts';
import type { Store } from '../store/engine/db.ts';
import { accountRouteNames } from '../store/carriers.ts';
import {
  claimDueMessages,
  finishCampaigns,
  reclaimAbandonedClaims,
  suppressBlocked,
  type ClaimedMessage,
  type ClaimScope,
  type DispatchOutcome,
} from '../store/dispatch.ts';
import { BatchRecorder } from './batch-recorder.ts';
import type { CarrierHealthBook } from './carrier-health.ts';
import type { DeliveryOutcomes } from './delivery-outcomes.ts';
import type { DeliverySettings } from './delivery-settings.ts';
import type { DailyCaps } from './daily-caps.ts';
import { DELIVERY, deliveryStatusText } from '../domain/status.ts';
import { campaignOutcomeCounts } from '../store/campaigns.ts';

/** What the dispatcher needs from the service. */
export interface DispatcherDeps {
  store: Store;
  logger: Logger;
  signals: LocalSignals;
  clock: () => number;
  carriers: Map<string, Carrier>;
  router: Router;
  settings: DeliverySettings;
  /** Called after each batch's outcomes are committed (receipts that came early can now match). */
  recorded?: () => void;
  /** Take back messages left 'submitting' by a previous run at once (single-process SQLite). */
  reclaimOnStart?: boolean;
  /** The key sealed message values (one-time codes) are opened with. */
  sealingKey?: Buffer;
  /** Where calls go (voice trunks); calls fail when absent. */
  voiceRouter?: Router;
  /** The carriers' daily caps and prices; none apply when absent. */
  caps?: DailyCaps;
  /** Told of each submit, for the carriers' health (carrier-health.ts). */
  health?: CarrierHealthBook;
  /** Counts the messages a carrier refused for good (failed), for /metrics (delivery-outcomes.ts). */
  outcomes?: DeliveryOutcomes;
}

/** Counters since start. */
export interface DispatcherStats {
  batches: number;
  /** Messages the carrier accepted (every part answered OK), counted as the answers arrive. */
  accepted: number;
  claimed: number;
  submitted: number;
  retried: number;
  failed: number;
  blocked: number;
  /** Times a carrier refused a message and the next carrier on its route was tried. */
  failedOver: number;
}

/** What a submit that waited for its carrier's permit across a change of routes returns: route it again. */
const ROUTES_CHANGED = Symbol('routes changed');

/** Messages the priority lane claims at a time. */
const PRIORITY_BATCH = 100;
/** Calls the voice lane claims at a time when no trunk says how many it can start. */
const CALL_BATCH = 50;
/** How long a message waits when every carrier of its route has reached its daily cap (at most the backoff). */
const CAPPED_WAIT_MS = 60_000;

/** Runs `settings.lanes` claim-submit-record loops until stopped. */
export class Dispatcher {
  readonly stats: DispatcherStats = {
    batches: 0,
    accepted: 0,
    claimed: 0,
    submitted: 0,
    retried: 0,
    failed: 0,
    blocked: 0,
    failedOver: 0,
  };
  private stopped = true;
  private lanes: Promise<void>[] = [];
  private wakers: Array<() => void> = [];
  private unsubscribe: (() => void) | undefined;
  private lastLease = 0;
  /** Counts changes of routes (setRouters), so a message that waited across one is routed again. */
  private routesVersion = 0;
  /** Per carrier: messages submitted and not yet recorded, at most its inFlightLimit. */
  private readonly unrecorded = new Map<string, FifoPermits>();
  /** Account names by id, for routes that filter by account. */
  private readonly accounts = new Map<number, Promise<{ username: string; reseller: string | null } | undefined>>();

  constructor(private readonly deps: DispatcherDeps) {}

  /** Starts the loops: the text lanes (the dispatcher role) and the call lane (the voice role). */
  start(which: { texts?: boolean; calls?: boolean } = {}): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.deps.signals.subscribe('dispatch', () => this.wake());
    const reclaim = this.deps.reclaimOnStart ? this.reclaimAbandoned() : Promise.resolve();
    if (which.texts !== false) {
      for (let i = 0; i < this.deps.settings.lanes; i++) this.lanes.push(reclaim.then(() => this.loop(i, 'all')));
      this.lanes.push(reclaim.then(() => this.loop(this.deps.settings.lanes, 'priority')));
    }
    if (which.calls !== false) this.lanes.push(reclaim.then(() => this.loop(this.deps.settings.lanes + 1, 'call')));
  }

  /** Stops claiming, lets batches in flight finish and record, then resolves. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake();
    await Promise.all(this.lanes);
    this.lanes = [];
  }

  /** Wakes idle lanes (new messages are due). */
  wake(): void {
    for (const w of this.wakers.splice(0)) w();
  }

  private async reclaimAbandoned(): Promise<void> {
    const n = await reclaimAbandonedClaims(this.deps.store.db);
    if (n > 0)
      this.deps.logger.warn(
        { messages: n },
        'dispatcher: taking back messages a previous run left mid-submit (they may be sent twice)',
      );
  }

  private async loop(lane: number, scope: ClaimScope): Promise<void> {
    while (!this.stopped) {
      let worked = 0;
      try {
        worked = await this.runBatch(scope);
      } catch (err) {
        this.deps.logger.error({ err, lane }, 'dispatcher: batch failed');
      }
      if (worked === 0 && !this.stopped) await this.idle(this.deps.settings.pollMs);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.wakers = this.wakers.filter((w) => w !== done);
        resolve();
      }, ms);
      this.wakers.push(done);
    });
  }

  /** A lease value later than now + leaseMs and than any this dispatcher handed out (it also names the claim). */
  private nextLease(): number {
    this.lastLease = Math.max(this.deps.clock() + this.deps.settings.leaseMs, this.lastLease + 1);
    return this.lastLease;
  }

  /** Claims, submits and records one batch; returns how many messages it handled (0: nothing due). */
  async runBatch(scope: ClaimScope = 'all'): Promise<number> {
    const { store, clock, settings, logger } = this.deps;
    const now = clock();
    const lease = this.nextLease();
    const limit = scope === 'priority' ? PRIORITY_BATCH : scope === 'call' ? this.callCapacity() : settings.batchSize;
    if (limit === 0) return 0;
    // A node holding none of the carriers' binds (other nodes hold them all) leaves the messages to those nodes.
    if (scope !== 'call' && !this.anyTextCarrierBound()) return 0;
    const { claimed, toSend } = await store.db.transaction().execute(async (trx) => {
      const claimed = await claimDueMessages(trx, now, lease, limit, scope);
      return { claimed, toSend: claimed.length ? await suppressBlocked(trx, claimed, now) : [] };
    });
    if (claimed.length === 0) return 0;
    this.stats.batches++;
    this.stats.claimed += claimed.length;
    this.stats.blocked += claimed.length - toSend.length;
    if (claimed.length !== toSend.length) this.deps.signals.notify('push');
    const recorder = new BatchRecorder(
      {
        store,
        clock,
        leaseMs: settings.leaseMs,
        receiptWindowMs: scope === 'call' ? settings.callWindowMs : settings.receiptWindowMs,
        nextLease: () => this.nextLease(),
        written: (outcomes, ok) => this.written(outcomes, ok),
        failed: (err, what) =>
          logger.error(
            { err, what },
            'dispatcher: writing a batch failed; its messages are claimed again when their lease ends',
          ),
        lost: (ids) =>
          logger.warn(
            { messages: ids.length },
            'dispatcher: a batch lost the lease of messages another claimer took; it does not submit them',
          ),
      },
      toSend.map((m) => m.id),
      lease,
    );
    await Promise.all(
      toSend.map(async (m) => {
        const outcome = await this.submit(m, recorder);
        if (outcome) recorder.add(outcome);
      }),
    );
    await recorder.finish();
    const finished = await store.db
      .transaction()
      .execute((trx) => finishCampaigns(trx, [...new Set(claimed.map((m) => m.campaign_id))], clock()));
    for (const campaign of finished) await this.logFinished(campaign);
    return claimed.length;
  }

  /**
   * docs/logs.md: campaign.finished, once per campaign, with its messages counted by delivery status; at info
   * for campaigns of several recipients, at debug for single messages (one line per API send would drown the rest).
   */
  private async logFinished({ id: campaignId, recipients }: { id: number; recipients: number }): Promise<void> {
    const level = recipients > 1 ? 'info' : 'debug';
    if (!this.deps.logger.isLevelEnabled(level)) return;
    const { username, counts } = await campaignOutcomeCounts(this.deps.store.db, campaignId).catch(() => ({
      username: undefined,
      counts: [],
    }));
    const byStatus = Object.fromEntries(
      counts.map((c) => [c.status === null ? 'not submitted' : deliveryStatusText(c.status).en, c.count]),
    );
    const messages = counts.reduce((sum, c) => sum + c.count, 0);
    this.deps.logger[level](
      { event: 'campaign.finished', campaign: campaignId, account: username, messages, by_status: byStatus },
      'campaign finished',
    );
  }

  // After a group of outcomes is written (or failed to be): its carriers' permits go back; once committed,
  // counters, pushes for failures, and early receipts may now match.
  private written(outcomes: DispatchOutcome[], ok: boolean): void {
    for (const o of outcomes) if (o.carrier !== null) this.unrecorded.get(o.carrier)?.release();
    for (const o of outcomes) if (o.kind === 'submitted') this.deps.caps?.recorded(o.carrier, o.message.parts, ok);
    if (!ok) return;
    for (const o of outcomes) {
      if (o.kind === 'submitted') this.stats.submitted++;
      else if (o.kind === 'retry') this.stats.retried++;
      else {
        this.stats.failed++;
        this.deps.outcomes?.count([{ carrier: o.carrier, status: o.status }]);
      }
    }
    if (outcomes.some((o) => o.kind === 'failed')) this.deps.signals.notify('push');
    this.deps.recorded?.();
  }

  private permits(carrier: Carrier): FifoPermits {
    let permits = this.unrecorded.get(carrier.name);
    if (!permits) this.unrecorded.set(carrier.name, (permits = new FifoPermits(() => carrier.inFlightLimit)));
    return permits;
  }

  // The text as sent: a sealed code is opened and put in place of `[code]`; undefined when it cannot be opened.
  private textOf(message: ClaimedMessage): string | undefined {
    if (message.sealed === null) return message.text;
    try {
      if (!this.deps.sealingKey) return undefined;
      return fillCode(message.text, unseal(this.deps.sealingKey, message.sealed));
    } catch {
      return undefined;
    }
  }

  // With no text carrier at all, messages are claimed and fail (no route); with some, one must be bound.
  private anyTextCarrierBound(): boolean {
    let texting = 0;
    for (const carrier of this.deps.carriers.values()) {
      if (carrier.freeSlots !== undefined) continue;
      texting++;
      if (carrier.canSubmit() && !this.deps.caps?.full(carrier.name)) return true;
    }
    return texting === 0;
  }

  // Calls the voice trunks can start now: a call claimed waits for no slot, so it never outlives its lease.
  private callCapacity(): number {
    let free = 0;
    let trunks = 0;
    for (const carrier of this.deps.carriers.values()) {
      if (carrier.freeSlots === undefined) continue;
      trunks++;
      free += carrier.freeSlots();
    }
    return trunks === 0 ? CALL_BATCH : free;
  }

  /** Routes from now on (a live change of carriers or routes). */
  setRouters(router: Router, voiceRouter: Router | undefined): void {
    this.deps.router = router;
    this.deps.voiceRouter = voiceRouter;
    this.routesVersion++;
  }

  // Who sent it, for routes that filter by account: the account's username and its reseller's (cached).
  private async accountOf(accountId: number): Promise<{ username: string; reseller: string | null } | undefined> {
    let names = this.accounts.get(accountId);
    if (!names) {
      names = accountRouteNames(this.deps.store.db, accountId);
      this.accounts.set(accountId, names);
    }
    return names;
  }

  // The carriers a message is tried on, in order: its route's list, those bound now first (a carrier down is
  // passed over while another on the list can take the message; when none can, each is tried in turn).
  private async carriersFor(
    message: ClaimedMessage,
    call: boolean,
  ): Promise<{ carriers: Carrier[]; passedOver?: Carrier }> {
    const router = call ? this.deps.voiceRouter : this.deps.router;
    if (!router) return { carriers: [] };
    const account = router.filtersByAccount ? await this.accountOf(message.account_id) : undefined;
    const names = router.candidates({
      phone: message.phone,
      source: message.source,
      account: account?.username,
      reseller: account?.reseller,
      channel: call ? 'voice' : 'sms',
      key: message.id,
    });
    const carriers = names.map((n) => this.deps.carriers.get(n)).filter((c): c is Carrier => c !== undefined);
    if (carriers.length === 1) return { carriers };
    const ordered = [...carriers.filter((c) => c.canSubmit()), ...carriers.filter((c) => !c.canSubmit())];
    // The route's first carrier is down and another takes the message: it is diverted, not refused.
    return ordered[0] === carriers[0] ? { carriers: ordered } : { carriers: ordered, passedOver: carriers[0] };
  }

  // A carrier pushing back (throttled) with more messages waiting in line for its permits than the backlog limit.
  private backlogged(carrier: Carrier): boolean {
    const waiting = this.unrecorded.get(carrier.name)?.waiting ?? 0;
    if (waiting < this.deps.settings.throttleBacklog) return false;
    return carrier.condition?.().throttledSince !== undefined;
  }

  // Undefined when the batch no longer holds the message (its lease lapsed): it is left to its next claimer.
  // A message routed before a change of routes and still waiting for its carrier's permit when the change comes is
  // routed again under the new routes (a change moves the messages already claimed too, not only the next batch).
  private async submit(message: ClaimedMessage, recorder: BatchRecorder): Promise<DispatchOutcome | undefined> {
    for (;;) {
      const outcome = await this.submitOnRoutes(message, recorder, this.routesVersion);
      if (outcome !== ROUTES_CHANGED) return outcome;
    }
  }

  private async submitOnRoutes(
    message: ClaimedMessage,
    recorder: BatchRecorder,
    routesVersion: number,
  ): Promise<DispatchOutcome | undefined | typeof ROUTES_CHANGED> {
    const call = message.channel === 'call';
    const { carriers, passedOver } = await this.carriersFor(message, call);
    const { health } = this.deps;
    if (passedOver) health?.diverted(passedOver.name);
    if (carriers.length === 0) {
      return {
        kind: 'failed',
        message,
        carrier: null,
        status: DELIVERY.FAILED,
        error: call ? 'no voice trunk routes this destination' : 'no carrier routes this destination',
      };
    }
    const text = this.textOf(message);
    if (text === undefined)
      return {
        kind: 'failed',
        message,
        carrier: null,
        status: DELIVERY.FAILED,
        error: 'its code was sealed under another key (YONA_SECRET_KEY differs between nodes)',
      };
    // One carrier at a time: the next is tried only once this one refused the message with nothing of it taken.
    // A carrier whose daily cap the message's parts do not fit under is passed over as if it had refused.
    const { caps } = this.deps;
    const fits = (c: Carrier) => !caps?.full(c.name, message.parts);
    const ready = (c: Carrier) => c.canSubmit() && fits(c) && !this.backlogged(c);
    let tried: Array<{ carrier: Carrier; error: string }> = [];
    for (const [i, carrier] of carriers.entries()) {
      // A backlogged carrier is passed over for a later one of the route that is bound, not backlogged and under its
      // cap (the messages already in its line stay there); checked as the message would join its line.
      if (this.backlogged(carrier) && carriers.slice(i + 1).some(ready)) continue;
      if (caps && !caps.reserve(carrier.name, message.parts)) continue;
      const outcome = await this.submitTo(carrier, message, text, call, recorder, routesVersion);
      if (outcome === ROUTES_CHANGED || !outcome?.ok) caps?.release(carrier.name, message.parts);
      if (outcome === ROUTES_CHANGED || !outcome) return outcome;
      // Failed without reaching a carrier that is down (no bind to send on): no refusal of its own.
      const unsent = !outcome.ok && outcome.transient && outcome.elsewhere === true && !carrier.canSubmit();
      if (!unsent) health?.answered(carrier.name, outcome);
      const last = !carriers.slice(i + 1).some(fits);
      if (outcome.ok || !outcome.transient || !outcome.elsewhere || last)
        return this.outcomeOf(message, carrier, outcome, tried);
      this.unrecorded.get(carrier.name)?.release(); // its permit: the message moves on
      this.stats.failedOver++;
      if (unsent) health?.diverted(carrier.name);
      tried = [...tried, { carrier, error: outcome.error }];
      this.deps.logger.debug(
        { carrier: carrier.name, next: carriers[i + 1].name, message: message.id, error: outcome.error },
        'dispatcher: carrier refused the message; trying the next on its route',
      );
    }
    return this.cappedOutcome(message, tried);
  }

  // Every carrier of the message's route has reached its daily cap: it waits, and the wait is not an attempt.
  private cappedOutcome(message: ClaimedMessage, tried: Array<{ carrier: Carrier; error: string }>): DispatchOutcome {
    const before = tried.map((t) => `${t.carrier.name}: ${t.error}`).join('; ');
    return {
      kind: 'retry',
      message,
      carrier: null,
      at: this.deps.clock() + Math.min(CAPPED_WAIT_MS, this.deps.settings.retryMaxMs),
      error: `every carrier of its route has reached its daily cap${before ? ` (before: ${before})` : ''}`,
      uncounted: tried.length === 0,
    };
  }

  private async submitTo(
    carrier: Carrier,
    message: ClaimedMessage,
    text: string,
    call: boolean,
    recorder: BatchRecorder,
    routesVersion: number,
  ): Promise<SubmitResult | undefined | typeof ROUTES_CHANGED> {
    const { health } = this.deps;
    health?.holding(carrier.name, message.id, message.created_at);
    await this.permits(carrier).acquire(message.priority > 0); // released when the outcome is written
    health?.handedOver(carrier.name, message.id);
    if (!recorder.holds(message.id)) {
      this.permits(carrier).release();
      return undefined;
    }
    if (routesVersion !== this.routesVersion) {
      this.permits(carrier).release();
      return ROUTES_CHANGED;
    }
    let result: SubmitResult;
    try {
      const spoken = call && message.spoken ? { spoken: JSON.parse(message.spoken) } : {};
      result = await carrier.submit({
        messageId: message.id,
        source: message.source,
        destination: message.phone,
        text,
        ...spoken,
      });
    } catch (err) {
      result = { ok: false, transient: true, error: `carrier error: ${(err as Error).message}` };
    }
    return result;
  }

  private outcomeOf(
    message: ClaimedMessage,
    carrier: Carrier,
    result: SubmitResult,
    tried: Array<{ carrier: Carrier; error: string }>,
  ): DispatchOutcome {
    if (result.ok) {
      this.stats.accepted++;
      const { caps } = this.deps;
      const perPart = caps?.costPerPartMilli(carrier.name);
      return {
        kind: 'submitted',
        message,
        carrier: carrier.name,
        carrierMessageIds: result.carrierMessageIds,
        ...(caps ? { day: caps.today() } : {}),
        ...(perPart === undefined ? {} : { carrierCost: perPart * message.parts }),
      };
    }
    const { settings } = this.deps;
    const error = tried.length
      ? `${result.error} (before: ${tried.map((t) => `${t.carrier.name}: ${t.error}`).join('; ')})`
      : result.error;
    if (!result.transient)
      return { kind: 'failed', message, carrier: carrier.name, status: result.status ?? DELIVERY.FAILED, error };
    if (message.attempts >= settings.maxAttempts) {
      return {
        kind: 'failed',
        message,
        carrier: carrier.name,
        status: DELIVERY.FAILED,
        error: `gave up after ${message.attempts} attempts: ${error}`,
      };
    }
    const delay = Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** Math.min(message.attempts - 1, 20));
    return { kind: 'retry', message, carrier: carrier.name, at: this.deps.clock() + delay, error };
  }
}

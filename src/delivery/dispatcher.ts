// The dispatcher: claims due messages in batches under a lease, drops blocked recipients (201, refunded),
// routes each message (routing.ts gives its route's carriers; carrier-choice.ts decides over a snapshot of them
// which to submit to, those bound and not throttled beyond their backlog first, a carrier that refuses it for its
// own reasons handing it to the next, and when it waits or fails), submits them concurrently
// (the connector's windows bound what is in flight), and records the outcomes as they arrive, in small groups (batch-recorder.ts):
// submitted (-1), retried with exponential backoff, or failed (refunded). Wakes on the 'dispatch' signal and
// polls otherwise. One more lane claims only priority messages (one-time codes): it is never behind a
// campaign's batch, and its messages take the carrier's next free permit.
import type { Router, RouteCarrier } from './routing.ts';
import type { Carrier, SubmitResult, TemplatePayload } from '../carriers/types.ts';
import { type ChannelName, channelOfStored } from '../domain/channels.ts';
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
import { type CarrierDecision, chooseCarrier, type TriedCarrier } from './carrier-choice.ts';
import { readSnapshot } from './choice-snapshot.ts';
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
  /** Where each channel's messages go (its carriers' routes); a channel without a router fails its messages. */
  routers: ReadonlyMap<ChannelName, Router>;
  settings: DeliverySettings;
  /** Called after each batch's outcomes are committed (receipts that came early can now match). */
  recorded?: () => void;
  /** Take back messages left 'submitting' by a previous run at once (single-process SQLite). */
  reclaimOnStart?: boolean;
  /** The key sealed message values (one-time codes) are opened with. */
  sealingKey?: Buffer;
  /** The carriers' daily caps and prices; none apply when absent. */
  caps?: DailyCaps;
  /** Told of each submit, for the carriers' health (carrier-health.ts). */
  health?: CarrierHealthBook;
  /** Counts the messages a carrier refused for good (failed), for /metrics (delivery-outcomes.ts). */
  outcomes?: DeliveryOutcomes;
  /**
   * Reads the carriers and routes again (applying a change through setRouters) unless a reading began after
   * `acceptedAt`: a message accepted for a carrier the API already saw is not failed before this node sees it.
   */
  refreshRoutes?: (acceptedAt: number) => Promise<void>;
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
  /** Messages in line for a carrier's permits. */
  private readonly waitingFor = (carrier: string): number => this.unrecorded.get(carrier)?.waiting ?? 0;
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

  // The sealed code of a message, opened (undefined when it cannot be).
  private codeOf(message: ClaimedMessage): string | undefined {
    try {
      return this.deps.sealingKey && message.sealed !== null ? unseal(this.deps.sealingKey, message.sealed) : undefined;
    } catch {
      return undefined;
    }
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
  setRouters(routers: ReadonlyMap<ChannelName, Router>): void {
    this.deps.routers = routers;
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

  // The carriers of a message's route (no router for its channel: none); the choice over them is carrier-choice.ts's.
  private async routeOf(message: ClaimedMessage, channel: ChannelName): Promise<readonly RouteCarrier[]> {
    const router = this.deps.routers.get(channel);
    if (!router) return [];
    const account = router.filtersByAccount ? await this.accountOf(message.account_id) : undefined;
    return router.carriersOf({
      phone: message.phone,
      source: message.source,
      account: account?.username,
      reseller: account?.reseller,
      channel,
    });
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

  // Carries out the choice of carrier-choice.ts, one carrier at a time: the next is asked for only once this one
  // refused the message with nothing of it taken.
  private async submitOnRoutes(
    message: ClaimedMessage,
    recorder: BatchRecorder,
    routesVersion: number,
  ): Promise<DispatchOutcome | undefined | typeof ROUTES_CHANGED> {
    const call = message.channel === 'call';
    const route = await this.routeOf(message, channelOfStored(message.channel));
    // No carrier routes it here: the carriers the API accepted it against may not have reached this node yet.
    if (route.length === 0 && this.deps.refreshRoutes) {
      await this.deps.refreshRoutes(message.created_at);
      if (this.routesVersion !== routesVersion) return ROUTES_CHANGED;
    }
    const { health, caps } = this.deps;
    const tried: TriedCarrier[] = [];
    let text: string | undefined;
    // The last carrier that refused the message, and whether the refusal was only its having no bind to send on.
    let refusedBy: Carrier | undefined;
    let unsent = false;
    for (;;) {
      const decision = chooseCarrier(readSnapshot(message, route, call, tried, this.deps, this.waitingFor));
      if (tried.length === 0) {
        if (decision.kind !== 'fail' && decision.kind !== 'accepted' && decision.diverted)
          health?.diverted(decision.diverted);
        if (decision.kind === 'fail') return { ...decision, kind: 'failed', message };
        text = this.textOf(message);
        if (text === undefined)
          return {
            kind: 'failed',
            message,
            carrier: null,
            status: DELIVERY.FAILED,
            error: 'its code was sealed under another key (YONA_SECRET_KEY differs between nodes)',
          };
      }
      if (refusedBy && decision.carrier !== refusedBy.name) {
        this.unrecorded.get(refusedBy.name)?.release(); // its permit: the message moves on
        this.stats.failedOver++;
        if (unsent) health?.diverted(refusedBy.name);
        const refusal = tried[tried.length - 1].result;
        this.deps.logger.debug(
          {
            carrier: refusedBy.name,
            next: decision.carrier,
            message: message.id,
            error: refusal?.ok === false && refusal.error,
          },
          'dispatcher: carrier refused the message; trying the next on its route',
        );
      }
      refusedBy = undefined;
      if (decision.kind !== 'submit') return this.outcomeOf(message, decision, tried);
      if (decision.skipped) for (const name of decision.skipped) tried.push({ carrier: name });
      const carrier = this.deps.carriers.get(decision.carrier) as Carrier;
      if (caps && !caps.reserve(carrier.name, message.parts)) {
        tried.push({ carrier: carrier.name });
        continue;
      }
      const result = await this.submitTo(carrier, message, text as string, call, recorder, routesVersion);
      if (result === ROUTES_CHANGED || !result?.ok) caps?.release(carrier.name, message.parts);
      if (result === ROUTES_CHANGED || !result) return result;
      // Failed without reaching a carrier that is down (no bind to send on): no refusal of its own.
      unsent = !result.ok && result.transient && result.elsewhere === true && !carrier.canSubmit();
      if (!unsent) health?.answered(carrier.name, result);
      tried.push({ carrier: carrier.name, result });
      if (!result.ok) refusedBy = carrier;
    }
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
      // A template's parameters hold `[code]` where a sealed code goes, as its text does.
      const template = message.template
        ? {
            template: withCode(
              JSON.parse(message.template),
              message.sealed === null ? undefined : this.codeOf(message),
            ),
          }
        : {};
      result = await carrier.submit({
        messageId: message.id,
        source: message.source,
        destination: message.phone,
        text,
        ...spoken,
        ...template,
      });
    } catch (err) {
      result = { ok: false, transient: true, error: `carrier error: ${(err as Error).message}` };
    }
    return result;
  }

  // The message's outcome as decided: accepted by the last carrier tried, retried later, or failed.
  private outcomeOf(
    message: ClaimedMessage,
    decision: Exclude<CarrierDecision, { kind: 'submit' }>,
    tried: TriedCarrier[],
  ): DispatchOutcome {
    if (decision.kind === 'fail') return { ...decision, kind: 'failed', message };
    if (decision.kind === 'retry') {
      const { diverted: _, ...retry } = decision;
      return { ...retry, message };
    }
    this.stats.accepted++;
    const result = tried[tried.length - 1].result as Extract<SubmitResult, { ok: true }>;
    const { caps } = this.deps;
    const perPart = caps?.costPerPartMilli(decision.carrier);
    return {
      kind: 'submitted',
      message,
      carrier: decision.carrier,
      carrierMessageIds: result.carrierMessageIds,
      ...(caps ? { day: caps.today() } : {}),
      ...(perPart === undefined ? {} : { carrierCost: perPart * message.parts }),
    };
  }
}

/** A template payload with a one-time code in place of `[code]` in its parameters. */
function withCode(template: TemplatePayload, code: string | undefined): TemplatePayload {
  if (code === undefined) return template;
  return { ...template, parameters: template.parameters.map((p) => fillCode(p, code)) };
}

// The SMPP carrier: N binds to one SMSC, windowed and rate-limited submit_sm, receipts and inbound SMS.
import type smpp from 'smpp';
import type {
  Carrier,
  CarrierCondition,
  InboundSms,
  LateAccept,
  OutboundSms,
  Receipt,
  SubmitResult,
} from '../types.ts';
import { decodeFromSmpp } from './encoding.ts';
import type { SmppCarrierConfig } from './carrier-config.ts';
import { canonicalMessageId } from './ids.ts';
import { submitBodies, type SubmitBodies } from './payload.ts';
import {
  isBackpressureStatus,
  isTransientStatus,
  normalizeAddress,
  rawPayload,
  sourceAddress,
  statusName,
} from './pdu.ts';
import { mapReceiptToStatus, receiptFromPdu } from './receipt.ts';
import { SmppSession, type SessionConfig, type SmppLogger } from './session.ts';
import { tlsConnectOptions } from './tls.ts';
import { sleep, TokenBucket } from './window.ts';
import { DELIVERY } from '../../domain/status.ts';

export type { SmppCarrierConfig } from './carrier-config.ts';

type PartOutcome =
  | { ok: true; id: string }
  | { ok: false; transient: boolean; error: string; commandStatus?: number; elsewhere?: boolean };

/** A submit's outcome, with the SMPP command_status of a refusal beside our delivery status. */
export type SmppSubmitResult =
  | Extract<SubmitResult, { ok: true }>
  | (Extract<SubmitResult, { ok: false }> & { commandStatus?: number });

// command_status values that refuse the message's own content: ESME_RINVMSGLEN (0x01) and 0x104 (the invalid
// data coding of SMPP 5.0, which SMSCs answer to 3.4 clients too).
const MALFORMED_MESSAGE_STATUSES = new Set([0x01, 0x104]);

interface SlotWaiter {
  resolve(session: SmppSession | null): void;
  timer: NodeJS.Timeout;
}

/** How long a carrier may have no bind able to submit before its queued submits go elsewhere. */
export const DOWN_GRACE_MS = 5_000;

const silent: SmppLogger = { debug() {}, info() {}, warn() {}, error() {} };
const RECEIPT_BITS = 0x04 | 0x20; // esm_class: SMSC delivery receipt, intermediate delivery notification
const UDHI = 0x40;

/** Carrier over SMPP 3.4 using the `smpp` package; see SmppCarrierConfig. */
export class SmppCarrier implements Carrier {
  readonly name: string;
  readonly protocol = 'smpp';
  private readonly sessions: SmppSession[] = [];
  private readonly waiters: SlotWaiter[] = [];
  private readonly bucket: TokenBucket;
  private readonly receiptHandlers: Array<(r: Receipt) => void | Promise<void>> = [];
  private readonly inboundHandlers: Array<(s: InboundSms) => void | Promise<void>> = [];
  private readonly lateHandlers: Array<(a: LateAccept) => void | Promise<void>> = [];
  private readonly oneSubmit = new Map<string, SubmitBodies>();
  private readonly log: SmppLogger;
  private readonly sessionConfig: SessionConfig;
  private stopped = false;
  /** The sessions of each bind number this carrier has open (two with tx+rx). */
  private readonly byShare = new Map<number, SmppSession[]>();
  private sharesChosen = false;
  /** Its binds: the units several nodes share through leases. */
  readonly shares: number;
  private boundWaiters: Array<() => void> = [];
  /** Since when no bind can submit (undefined while one can). */
  private downSince: number | undefined = Date.now();
  /** Set once the carrier has been down for longer than its grace time: submits fail at once, for elsewhere. */
  private downTooLong = false;
  private graceTimer: NodeJS.Timeout | undefined;
  /** Since when the SMSC has been pushing back (until the rate is back at its maximum). */
  private throttledSince: number | undefined;
  private lastPushBackAt = 0;
  private lastError: { text: string; at: number } | undefined;
  /** Since when this node has held binds of the carrier (undefined while it holds none). */
  private heldSince: number | undefined;
  /** For health: since when this node holds binds and none can submit (a node holding none stands by). */
  private noBindSince: number | undefined;

  /** Reads the carrier's CA bundle (tlsCa) now; throws when it cannot be read. */
  constructor(private readonly config: SmppCarrierConfig) {
    this.name = config.name;
    this.shares = Math.max(1, config.binds);
    this.log = config.logger ?? silent;
    this.bucket = new TokenBucket(config.maxSubmitsPerSecond);
    this.sessionConfig = { ...config, tlsOptions: tlsConnectOptions(config) };
  }

  /**
   * Opens every bind (or keeps those useShares chose); resolves once one can submit, or after 2 x responseTimeoutMs
   * (binds keep retrying).
   */
  async start(): Promise<void> {
    if (!this.sharesChosen) await this.useShares([...Array(this.shares).keys()]);
    if (!this.sessions.some((s) => s.canSubmit)) this.wentDown();
    if (this.sessions.length > 0) await this.ready(this.config.responseTimeoutMs * 2);
  }

  /**
   * Keeps open exactly the binds numbered `indexes` (those this node holds a lease for when several nodes share
   * the carrier's binds): opens the missing ones and unbinds the others. Submits in an unbound session's
   * window finish first (stop lets them); queued ones move to the remaining binds.
   */
  async useShares(indexes: number[]): Promise<void> {
    this.stopped = false;
    this.sharesChosen = true;
    const wanted = new Set(indexes.filter((i) => i >= 0 && i < this.shares));
    const kinds =
      this.config.bindMode === 'tx+rx' ? (['transmitter', 'receiver'] as const) : (['transceiver'] as const);
    const hooks = {
      bound: () => this.sessionBound(),
      slotFreed: () => this.pump(),
      lost: () => this.sessionLost(),
      deliver: (pdu: smpp.PDU) => this.deliver(pdu),
      failed: (why: string) => this.noteError(why),
    };
    const closing: SmppSession[] = [];
    for (const [index, sessions] of this.byShare) {
      if (wanted.has(index)) continue;
      this.byShare.delete(index);
      closing.push(...sessions);
    }
    if (closing.length > 0) {
      this.sessions.splice(0, this.sessions.length, ...this.sessions.filter((s) => !closing.includes(s)));
    }
    for (const index of wanted) {
      if (this.byShare.has(index)) continue;
      const opened = kinds.map(
        (kind) => new SmppSession(`${this.name}#${index}:${kind}`, kind, this.sessionConfig, hooks, this.log),
      );
      this.byShare.set(index, opened);
      this.sessions.push(...opened);
      for (const session of opened) session.start();
    }
    if (this.byShare.size === 0) this.heldSince = undefined;
    else this.heldSince ??= Date.now();
    await Promise.all(closing.map((s) => s.stop()));
  }

  /** Submits one window per bind this node has open (all its binds until useShares chose). */
  get inFlightLimit(): number {
    return this.config.windowSize * (this.sharesChosen ? Math.max(1, this.byShare.size) : this.shares);
  }

  /** The binds open now, by number. */
  sharesInUse(): number[] {
    return [...this.byShare.keys()].sort((a, b) => a - b);
  }

  /** Resolves true once at least one session can submit, false after `timeoutMs`. */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.sessions.some((s) => s.canSubmit)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.boundWaiters = this.boundWaiters.filter((w) => w !== done);
        resolve(false);
      }, timeoutMs);
      this.boundWaiters.push(done);
    });
  }

  /**
   * Submits every part (one submit_sm for a message_payload carrier); ok only when each got submit_sm_resp
   * with status 0. carrierMessageIds holds one id per submit_sm, in part order.
   */
  async submit(sms: OutboundSms): Promise<SmppSubmitResult> {
    let payload = this.oneSubmit.get(sms.text);
    if (!payload) {
      try {
        payload = submitBodies(sms.text, this.config.longMessages ?? 'udh', concatReference(sms.messageId));
      } catch (err) {
        return {
          ok: false,
          transient: false,
          error: `cannot encode message: ${(err as Error).message}`,
          status: DELIVERY.ILLEGAL_MESSAGE,
        };
      }
      // A single submit_sm does not depend on the reference number: a campaign's texts are encoded once.
      if (payload.bodies.length === 1) {
        if (this.oneSubmit.size >= 256) this.oneSubmit.clear();
        this.oneSubmit.set(sms.text, payload);
      }
    }
    const fields: smpp.PduFields = {
      service_type: '',
      ...sourceAddress(sms.source),
      dest_addr_ton: 1,
      dest_addr_npi: 1,
      destination_addr: normalizeAddress(sms.destination),
      esm_class: payload.esmClass,
      registered_delivery: 1,
      data_coding: payload.dataCoding,
    };
    const outcomes = await Promise.all(
      payload.bodies.map((body, partIndex) =>
        this.submitPart({ ...fields, ...body }, (id) =>
          this.lateAccepted({ messageId: sms.messageId, partIndex, carrierMessageId: id }),
        ),
      ),
    );
    const failures = outcomes.filter((o): o is Extract<PartOutcome, { ok: false }> => !o.ok);
    if (failures.length === 0) return { ok: true, carrierMessageIds: outcomes.map((o) => (o as { id: string }).id) };
    // One permanent part failure makes the message permanent; otherwise the dispatcher retries all parts.
    const failure = failures.find((f) => !f.transient) ?? failures[0];
    const partNote = payload.bodies.length > 1 ? ` (${failures.length}/${payload.bodies.length} parts failed)` : '';
    // Another carrier may take it only when this one holds no part of it.
    const elsewhere = failures.length === outcomes.length && failures.every((f) => f.elsewhere);
    if (failure.transient) {
      const { elsewhere: _part, ...rest } = failure;
      return { ...rest, error: failure.error + partNote, ...(elsewhere ? { elsewhere } : {}) };
    }
    const malformed = failure.commandStatus !== undefined && MALFORMED_MESSAGE_STATUSES.has(failure.commandStatus);
    return {
      ...failure,
      error: failure.error + partNote,
      status: malformed ? DELIVERY.ILLEGAL_MESSAGE : DELIVERY.FAILED,
    };
  }

  private async submitPart(
    fields: smpp.PduFields,
    acceptedLate: (carrierMessageId: string) => void,
  ): Promise<PartOutcome> {
    let pause = this.config.throttlePauseMs ?? 100;
    const retries = this.config.throttleRetries ?? 10;
    for (let attempt = 0; ; attempt++) {
      if (!this.stopped) await this.bucket.take();
      if (this.stopped) return { ok: false, transient: true, error: 'carrier stopped', elsewhere: true };
      const session = await this.acquire();
      if (!session)
        return {
          ok: false,
          transient: true,
          error: 'no bound SMPP session with a free window slot',
          elsewhere: true,
        };
      const sentAt = performance.now();
      const result = await session.submit(fields, (pdu) => {
        if (pdu.command_status === 0) acceptedLate(this.submitId(pdu));
      });
      if ('error' in result) {
        const error = `submit_sm ${result.error}${result.detail ? `: ${result.detail}` : ''}`;
        this.noteError(error);
        return { ok: false, transient: result.error !== 'encode failed', error };
      }
      const status = result.pdu.command_status;
      if (status === 0) {
        this.bucket.succeeded();
        if (this.throttledSince !== undefined && this.bucket.recovered) this.throttledSince = undefined;
        return { ok: true, id: this.submitId(result.pdu) };
      }
      if (isBackpressureStatus(status)) {
        this.lastPushBackAt = Date.now();
        this.throttledSince ??= this.lastPushBackAt;
        this.noteError(`submit_sm answered ${statusName(status)}`);
      } else this.noteError(`submit_sm refused: ${statusName(status)}`);
      if (isBackpressureStatus(status) && attempt < retries && !this.stopped) {
        this.log.debug({ carrier: this.name, status: statusName(status), pause }, 'smsc pushed back; retrying part');
        if (this.bucket.throttled(pause, sentAt)) {
          this.log.info(
            { carrier: this.name, status: statusName(status), rate: this.bucket.currentRate },
            'smsc pushed back; submit rate halved',
          );
        }
        await sleep(pause);
        pause = Math.min(pause * 2, 5000);
        continue;
      }
      // The carrier answered with a refusal of its own: it holds no copy, another carrier may take the part.
      const transient = isTransientStatus(status);
      const error = statusName(status);
      return transient
        ? { ok: false, transient, error, commandStatus: status, elsewhere: true }
        : { ok: false, transient, error, commandStatus: status };
    }
  }

  // The carrier message id of a submit_sm_resp, in the form receipts are matched by.
  private submitId(pdu: smpp.PduFields): string {
    return canonicalMessageId(String(pdu.message_id ?? ''), 'submit', this.config.receiptIds);
  }

  // Grants a window slot on the least-loaded bound session, waiting (FIFO) while every window is full.
  private acquire(): Promise<SmppSession | null> {
    if (this.downTooLong) return Promise.resolve(null);
    const free = this.waiters.length === 0 ? this.pick() : undefined;
    if (free) {
      free.used++;
      return Promise.resolve(free);
    }
    return new Promise((resolve) => {
      const waiter: SlotWaiter = {
        resolve,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          resolve(null);
        }, this.config.queueTimeoutMs ?? 30_000),
      };
      this.waiters.push(waiter);
    });
  }

  private pick(): SmppSession | undefined {
    let best: SmppSession | undefined;
    for (const s of this.sessions) {
      if (s.canSubmit && s.used < this.config.windowSize && (!best || s.used < best.used)) best = s;
    }
    return best;
  }

  private pump(): void {
    while (this.waiters.length > 0) {
      const session = this.pick();
      if (!session) return;
      const waiter = this.waiters.shift()!;
      clearTimeout(waiter.timer);
      session.used++;
      waiter.resolve(session);
    }
  }

  private sessionBound(): void {
    if (this.downSince !== undefined && this.downTooLong)
      this.log.info({ downMs: Date.now() - this.downSince }, 'carrier bound again');
    clearTimeout(this.graceTimer);
    this.downSince = undefined;
    this.downTooLong = false;
    for (const done of this.boundWaiters.splice(0)) done();
    this.pump();
  }

  private sessionLost(): void {
    if (!this.stopped && !this.sessions.some((s) => s.canSubmit)) this.wentDown();
  }

  // No bind can submit: after the grace time (unless one binds again first) the queued submits fail for
  // elsewhere, and so does every submit until a bind is back, so the next carrier on their route takes them.
  private wentDown(): void {
    this.downSince ??= Date.now();
    clearTimeout(this.graceTimer);
    const grace = this.config.downGraceMs ?? DOWN_GRACE_MS;
    const left = Math.max(0, this.downSince + grace - Date.now());
    this.graceTimer = setTimeout(() => {
      if (this.stopped || this.sessions.some((s) => s.canSubmit)) return;
      this.downTooLong = true;
      const queued = this.waiters.splice(0);
      for (const waiter of queued) {
        clearTimeout(waiter.timer);
        waiter.resolve(null);
      }
      this.log.warn(
        {
          carrier: this.name,
          downMs: Date.now() - (this.downSince ?? Date.now()),
          graceMs: grace,
          queued: queued.length,
        },
        'carrier down for longer than its grace time: its messages go to the next carrier on their routes',
      );
    }, left);
    this.graceTimer.unref?.();
  }

  /** Registers a receipt handler; a handler that throws makes us answer ESME_RX_T_APPN so the SMSC redelivers. */
  onReceipt(handler: (receipt: Receipt) => void | Promise<void>): void {
    this.receiptHandlers.push(handler);
  }

  /** Registers an inbound SMS handler (called once per reassembled message). */
  onInbound(handler: (sms: InboundSms) => void | Promise<void>): void {
    this.inboundHandlers.push(handler);
  }

  /** Registers a handler for parts accepted after their submit timed out (see LateAccept). */
  onLateAccept(handler: (accepted: LateAccept) => void | Promise<void>): void {
    this.lateHandlers.push(handler);
  }

  private lateAccepted(accepted: LateAccept): void {
    this.log.warn(
      { carrier: this.name, ...accepted },
      'submit_sm_resp came after the submit timed out; the message was queued again and may arrive twice',
    );
    for (const handler of this.lateHandlers) {
      void Promise.resolve()
        .then(() => handler(accepted))
        .catch((err) =>
          this.log.error({ carrier: this.name, err, ...accepted }, 'recording a late-accepted part failed'),
        );
    }
  }

  // Handles one deliver_sm; the returned status goes into its deliver_sm_resp.
  private async deliver(pdu: smpp.PDU): Promise<number> {
    const esmClass = typeof pdu.esm_class === 'number' ? pdu.esm_class : 0;
    if (esmClass & RECEIPT_BITS) {
      const receipt = receiptFromPdu(pdu);
      if (!receipt) {
        this.log.warn({ carrier: this.name }, 'unparseable delivery receipt dropped');
        return 0;
      }
      const delivered: Receipt = {
        carrierMessageId: canonicalMessageId(receipt.carrierMessageId, 'receipt', this.config.receiptIds),
        status: mapReceiptToStatus(receipt.state, receipt.error),
      };
      for (const handler of this.receiptHandlers) await handler(delivered);
      return 0;
    }
    const from = normalizeAddress(pdu.source_addr);
    const to = normalizeAddress(pdu.destination_addr);
    const dataCoding = typeof pdu.data_coding === 'number' ? pdu.data_coding : 0;
    let decoded: ReturnType<typeof decodeFromSmpp>;
    try {
      decoded = decodeFromSmpp(rawPayload(pdu), dataCoding, (esmClass & UDHI) !== 0);
    } catch (err) {
      this.log.warn({ carrier: this.name, dataCoding, err: (err as Error).message }, 'inbound payload not decodable');
      decoded = { text: rawPayload(pdu).toString('latin1') };
    }
    // A part of a concatenated SMS goes on as a part: the receiver keeps it durably before it is acknowledged.
    const udh = decoded.udh && decoded.udh.total > 1 ? decoded.udh : undefined;
    const sms: InboundSms = {
      from,
      to,
      text: decoded.text,
      at: Date.now(),
      ...(udh ? { part: { ref: udh.ref, total: udh.total, seq: udh.seq } } : {}),
    };
    for (const handler of this.inboundHandlers) await handler(sms);
    return 0;
  }

  /** True while at least one bind is up. */
  canSubmit(): boolean {
    return this.sessions.some((s) => s.state === 'bound');
  }

  /** Counters for metrics and health: sessions bound, submits in windows, submits waiting, current rate. */
  stats(): { sessions: number; bound: number; inWindow: number; waiting: number; rate: number } {
    return {
      sessions: this.sessions.length,
      bound: this.sessions.filter((s) => s.state === 'bound').length,
      inWindow: this.sessions.reduce((n, s) => n + s.used, 0),
      waiting: this.waiters.length,
      rate: this.bucket.currentRate,
    };
  }

  private noteError(text: string): void {
    this.lastError = { text, at: Date.now() };
  }

  /** Binds up, held and configured, the windows, throttling and the last error (see CarrierCondition). */
  condition(): CarrierCondition {
    const graceMs = this.config.downGraceMs ?? DOWN_GRACE_MS;
    // An episode also ends when the SMSC has not pushed back for a grace time (no traffic to tell otherwise).
    if (this.throttledSince !== undefined && Date.now() - this.lastPushBackAt > graceMs)
      this.throttledSince = undefined;
    let bindsUp = 0;
    for (const sessions of this.byShare.values()) if (sessions.some((s) => s.canSubmit)) bindsUp++;
    if (this.heldSince === undefined || bindsUp > 0 || this.stopped) this.noBindSince = undefined;
    else this.noBindSince ??= Math.max(this.downSince ?? 0, this.heldSince);
    return {
      bindsUp,
      bindsHeld: this.byShare.size,
      bindsWanted: this.shares,
      windowInUse: this.sessions.reduce((n, s) => n + s.used, 0),
      windowSize: this.config.windowSize * this.byShare.size,
      ...(this.throttledSince !== undefined ? { throttledSince: this.throttledSince } : {}),
      paced: this.bucket.holding,
      ...(this.noBindSince !== undefined ? { downSince: this.noBindSince } : {}),
      graceMs,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  /** Fails queued submits transiently, lets in-window ones finish, unbinds every session and closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.graceTimer);
    for (const waiter of this.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.resolve(null);
    }
    this.bucket.releaseAll();
    await Promise.all(this.sessions.map((s) => s.stop()));
    this.sessions.length = 0;
    this.byShare.clear();
    this.heldSince = undefined;
    this.sharesChosen = false;
  }
}

/**
 * The UDH reference of a message's parts, fixed by its id: when a part failed and the dispatcher sends the
 * message again, the handset sees the same reference and drops the parts it already holds instead of showing
 * the text twice.
 */
export function concatReference(messageId: number): number {
  return messageId % 256;
}

// Sends the outbox's deliver_sm through this node's receiver and transceiver binds: it claims the due rows of the
// accounts bound here (as many as their binds' windows have room for), sends each on one of the account's binds,
// deletes it once answered with deliver_sm_resp ESME_ROK, and lets it fall due again when refused, unanswered or
// its bind closed. A row claimed by a node that dies falls due again by itself (the store is the hand-off).
import smpp from 'smpp';
import type { Logger } from '../logger.ts';
import type { Store } from '../store/engine/db.ts';
import {
  ackSmppOutbox,
  claimSmppOutbox,
  dropOldSmppOutbox,
  retrySmppOutbox,
  type SmppOutboxRow,
} from '../store/smpp-outbox.ts';
import { deliverFields } from './deliver.ts';
import type { SmppServerMetrics } from './metrics.ts';

/** A bind that takes deliver_sm, as the pump sees it. */
export interface ReceiverBind {
  accountId: number;
  session: smpp.Session;
  /** deliver_sm sent and not yet answered on it, and how many it may have. */
  delivering: number;
  window: number;
  /** Rows in flight on it, so they can be made due again when it closes. */
  rows: Set<number>;
}

export interface OutboxPumpOptions {
  /** How long a sent deliver_sm waits for its answer before it is sent again. */
  resendMs: number;
  /** How long a refused deliver_sm waits before it is sent again. */
  retryMs: number;
  pollMs: number;
  /** Rows older than this are dropped unsent (the receipt window). */
  keepMs: number;
}

const CLAIM_MAX = 500;
const SWEEP_MS = 60_000;

export class OutboxPump {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private readonly acked: number[] = [];
  private readonly refused: number[] = [];
  private flushing: Promise<void> | undefined;
  private lastSweep = 0;

  constructor(
    private readonly store: Store,
    private readonly receivers: () => ReceiverBind[],
    private readonly options: OutboxPumpOptions,
    private readonly metrics: SmppServerMetrics,
    private readonly logger: Logger,
    private readonly clock: () => number,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.flush();
  }

  /** Looks for due rows now (a bind came, an answer freed room). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.pump()
      .catch((err) => this.logger.error({ err, event: 'smpp.outbox_failed' }, 'SMPP outbox pass failed'))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          setImmediate(() => this.wake());
        }
      });
  }

  /** A bind closed: the rows it had in flight are due again now (for another bind, here or elsewhere). */
  lost(bind: ReceiverBind): void {
    if (bind.rows.size === 0) return;
    const ids = [...bind.rows];
    bind.rows.clear();
    void retrySmppOutbox(this.store.db, ids, this.clock()).catch((err) =>
      this.logger.error({ err, event: 'smpp.outbox_failed' }, 'SMPP outbox rows could not be released'),
    );
  }

  private async pump(): Promise<void> {
    const now = this.clock();
    if (now - this.lastSweep > SWEEP_MS) {
      this.lastSweep = now;
      const dropped = await dropOldSmppOutbox(this.store.db, now - this.options.keepMs);
      if (dropped > 0)
        this.logger.warn(
          { event: 'smpp.outbox_expired', dropped },
          'deliver_sm no receiver bind took within the receipt window were dropped',
        );
    }
    const binds = this.receivers().filter((b) => b.delivering < b.window);
    if (binds.length === 0) return;
    const room = new Map<number, number>();
    for (const b of binds) room.set(b.accountId, (room.get(b.accountId) ?? 0) + b.window - b.delivering);
    const limit = Math.min(
      CLAIM_MAX,
      [...room.values()].reduce((a, b) => a + b, 0),
    );
    const rows = await claimSmppOutbox(this.store.db, [...room.keys()], limit, now, now + this.options.resendMs);
    // The claim's limit is the room of all accounts together: rows beyond their own account's room are due again now.
    const spare: number[] = [];
    for (const row of rows) {
      const bind = this.pick(binds, row.accountId);
      if (!bind) {
        spare.push(row.id);
        continue;
      }
      this.send(bind, row);
    }
    if (rows.length === limit && limit > 0 && spare.length === 0) this.again = true;
    await retrySmppOutbox(this.store.db, spare, now);
    await this.flush();
  }

  // The account's bind with the most room, if any has room.
  private pick(binds: ReceiverBind[], accountId: number): ReceiverBind | undefined {
    let best: ReceiverBind | undefined;
    for (const b of binds)
      if (b.accountId === accountId && (!best || b.window - b.delivering > best.window - best.delivering)) best = b;
    return best && best.delivering < best.window ? best : undefined;
  }

  private send(bind: ReceiverBind, row: SmppOutboxRow): void {
    const kind = row.payload.kind;
    let pdus: smpp.PduFields[];
    try {
      pdus = deliverFields(row.payload, row.id);
    } catch (err) {
      this.logger.error({ err, event: 'smpp.outbox_unsendable', id: row.id }, 'an outbox row cannot be sent');
      this.refused.push(row.id);
      return;
    }
    bind.delivering += pdus.length;
    bind.rows.add(row.id);
    let answered = 0;
    let failed = false;
    let settled = false;
    const settle = (ok: boolean, result: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      bind.delivering -= pdus.length - answered;
      bind.rows.delete(row.id);
      this.metrics.delivers.inc({ kind, result });
      if (ok) this.acked.push(row.id);
      else if (result === 'refused') this.refused.push(row.id);
      this.wake();
    };
    // Unanswered: its claim runs out at the same time, and it is due again for any bind.
    const timer = setTimeout(() => settle(false, 'unanswered'), this.options.resendMs);
    timer.unref();
    const socket = bind.session.socket;
    if (!socket.writableCorked && socket.writable) {
      socket.cork();
      process.nextTick(() => socket.uncork());
    }
    for (const fields of pdus) {
      bind.session.send(new smpp.PDU('deliver_sm', fields), (resp: smpp.PDU) => {
        if (settled) return;
        answered++;
        bind.delivering--;
        if (resp.command_status !== 0) failed = true;
        if (answered === pdus.length) settle(!failed, failed ? 'refused' : 'ok');
      });
    }
  }

  private flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.acked.length === 0 && this.refused.length === 0) return Promise.resolve();
    const acked = this.acked.splice(0);
    const refused = this.refused.splice(0);
    this.flushing = (async () => {
      try {
        await ackSmppOutbox(this.store.db, acked);
        await retrySmppOutbox(this.store.db, refused, this.clock() + this.options.retryMs);
      } catch (err) {
        this.logger.error({ err, event: 'smpp.outbox_failed' }, 'SMPP outbox answers could not be recorded');
      } finally {
        this.flushing = undefined;
      }
    })();
    return this.flushing;
  }
}

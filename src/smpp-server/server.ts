// The SMPP server for customers: listeners (plain and TLS), binds, and each bound customer's requests. A submit
// runs the smppSubmit operation (the API's `sms` path) and is answered once its campaign is committed; receipts
// and inbound texts go out through the outbox pump. Whatever a peer sends, the server answers it, nacks it or
// closes the connection: it never throws.
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import smpp from 'smpp';
import { sendPdu } from '../carriers/smpp/pdu.ts';
import type { ComponentHost } from '../component.ts';
import { formatShort } from '../domain/dates.ts';
import { DELIVERY, type DeliveryStatus } from '../domain/status.ts';
import { cancel } from '../operations/campaigns.ts';
import { runOperation, type AppContext } from '../operations/execute.ts';
import { smppSubmit } from '../operations/smpp-submit.ts';
import type { Account } from '../store/accounts.ts';
import { deleteSmppBind, deleteStaleSmppBinds, insertSmppBind, refreshSmppBinds } from '../store/smpp-binds.ts';
import type { SmppAccount } from '../store/smpp-accounts.ts';
import { findSmppMessageState, findSmppSubmit } from '../store/smpp-outbox.ts';
import { authenticateBind } from './bind.ts';
import { SMPP_STATUS, submitStatusFor } from './command-status.ts';
import { registerSmppServerMetrics, type SmppServerMetrics } from './metrics.ts';
import { OutboxPump, type ReceiverBind } from './outbox-pump.ts';
import { HeldParts } from './parts.ts';
import { formatSmppTime } from './smpp-time.ts';
import { readSubmit, type ReadSubmit } from './submit.ts';
import { SubmitRate } from './throttle.ts';

// A message_payload holds up to 64 KiB; the package refuses PDUs over 16 KiB unless told otherwise.
const MAX_PDU_LENGTH = 16 + 0xffff + 1024;
if (smpp.PDU.maxLength < MAX_PDU_LENGTH) smpp.PDU.maxLength = MAX_PDU_LENGTH;

export type BindKind = 'transmitter' | 'receiver' | 'transceiver';

/** Timings of the server (tests shorten them). */
export interface SmppServerOptions {
  /** A connection with no PDU for this long is unbound and closed (also: one that does not bind in time). */
  idleMs: number;
  /** A deliver_sm not answered within this is sent again. */
  resendMs: number;
  /** A deliver_sm refused is sent again after this. */
  retryMs: number;
  /** The outbox is looked at this often (and whenever a bind comes or an answer frees room). */
  pollMs: number;
  /** The parts of a long message must all come within this. */
  partsTimeoutMs: number;
}

export const SMPP_SERVER_DEFAULTS: SmppServerOptions = {
  idleMs: 120_000,
  resendMs: 30_000,
  retryMs: 5_000,
  pollMs: 250,
  partsTimeoutMs: 60_000,
};

interface Bound extends ReceiverBind {
  id: string;
  account: Account;
  smpp: SmppAccount;
  kind: BindKind;
  since: number;
  /** Requests of the customer not answered yet (its window). */
  inFlight: number;
  submits: number;
}

interface Connection {
  session: smpp.Session;
  remote: string;
  tls: boolean;
  lastPduAt: number;
  binding: boolean;
  bound?: Bound;
  closed: boolean;
}

interface HeldPart {
  conn: Connection;
  pdu: smpp.PDU;
  submit: ReadSubmit;
  startedAt: number;
}

const BIND_COMMANDS = new Set(['bind_transmitter', 'bind_receiver', 'bind_transceiver']);

export class SmppServer {
  private readonly servers: smpp.Server[] = [];
  private readonly connections = new Set<Connection>();
  private readonly rates = new Map<number, SubmitRate>();
  private readonly held: HeldParts<HeldPart>;
  private readonly pump: OutboxPump;
  private readonly metrics: SmppServerMetrics;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly ports: { port?: number; tlsPort?: number } = {};

  constructor(
    private readonly host: ComponentHost,
    private readonly app: AppContext,
    private readonly options: SmppServerOptions = SMPP_SERVER_DEFAULTS,
  ) {
    this.metrics = registerSmppServerMetrics(host.metrics.registry, () => this.bindCounts());
    this.held = new HeldParts(options.partsTimeoutMs, (parts) => {
      for (const p of parts)
        this.answerSubmit(p.conn, p.pdu, { command_status: SMPP_STATUS.ESME_RSUBMITFAIL }, p.startedAt);
    });
    this.pump = new OutboxPump(
      host.store,
      () => this.receivers(),
      {
        resendMs: options.resendMs,
        retryMs: options.retryMs,
        pollMs: options.pollMs,
        keepMs: host.config.delivery.receiptWindowMs,
      },
      this.metrics,
      host.logger,
      host.clock,
    );
  }

  /** Starts the listeners asked for (plain and/or TLS); resolves with their ports. */
  async listen(o: {
    host: string;
    port?: number;
    tlsPort?: number;
    tls?: { key: string; cert: string };
  }): Promise<{ port?: number; tlsPort?: number }> {
    // Binds this node held before it stopped (or was killed) are not live any more.
    await deleteStaleSmppBinds(this.host.store.db, 0, this.host.node.name);
    if (o.port !== undefined)
      this.ports.port = await this.open(
        smpp.createServer({}, (s) => this.accept(s, false)),
        o.host,
        o.port,
      );
    if (o.tlsPort !== undefined && o.tls)
      this.ports.tlsPort = await this.open(
        smpp.createServer({ key: o.tls.key, cert: o.tls.cert, minVersion: 'TLSv1.2' }, (s) => this.accept(s, true)),
        o.host,
        o.tlsPort,
      );
    this.pump.start();
    const refresh = Math.max(200, Math.floor(this.host.config.node.leaseMs / 3));
    this.timers.push(setInterval(() => void this.refresh(), refresh));
    this.timers.push(setInterval(() => this.closeIdle(), Math.min(1000, this.options.idleMs)));
    for (const t of this.timers) t.unref();
    return { ...this.ports };
  }

  /** The listening ports. */
  get listening(): { port?: number; tlsPort?: number } {
    return { ...this.ports };
  }

  /** Binds on this node now, by type. */
  bindCounts(): Record<BindKind, number> {
    const counts: Record<BindKind, number> = { transmitter: 0, receiver: 0, transceiver: 0 };
    for (const c of this.connections) if (c.bound) counts[c.bound.kind]++;
    return counts;
  }

  /** Unbinds every customer, closes the listeners and forgets this node's binds. */
  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    this.held.clear();
    for (const conn of this.connections) {
      if (conn.bound) sendPdu(conn.session, new smpp.PDU('unbind', {}));
      setTimeout(() => conn.session.destroy(), 100).unref();
    }
    await this.pump.stop();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    for (const conn of this.connections) conn.session.destroy();
    await deleteStaleSmppBinds(this.host.store.db, 0, this.host.node.name).catch(() => {});
  }

  private open(server: smpp.Server, host: string, port: number): Promise<number> {
    this.servers.push(server);
    server.on('error', (err: Error) =>
      this.host.logger.error({ err, event: 'smpp.listener_failed' }, 'SMPP listener failed'),
    );
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  private receivers(): Bound[] {
    const out: Bound[] = [];
    for (const c of this.connections) if (c.bound && c.bound.kind !== 'transmitter' && !c.closed) out.push(c.bound);
    return out;
  }

  private accept(session: smpp.Session, tls: boolean): void {
    const socket = session.socket;
    socket.setNoDelay(true);
    const remote = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const conn: Connection = { session, remote, tls, lastPduAt: this.host.clock(), binding: false, closed: false };
    this.connections.add(conn);
    // A stream the package cannot frame (a length out of bounds, a PDU it cannot read) is garbage: close.
    session.on('error', (err: Error) => {
      if (!conn.closed) {
        this.metrics.nacks.inc({ why: 'garbage' });
        this.host.logger.debug(
          { event: 'smpp.garbage', remote, err: err.message },
          'SMPP connection closed: unreadable stream',
        );
      }
      session.destroy();
    });
    session.on('close', () => this.closed(conn, 'closed'));
    session.on('pdu', (pdu: smpp.PDU) => {
      try {
        this.handle(conn, pdu);
      } catch (err) {
        this.host.logger.warn({ event: 'smpp.pdu_refused', remote, err }, 'SMPP PDU refused');
        this.metrics.nacks.inc({ why: 'unreadable' });
        this.nack(conn, pdu, SMPP_STATUS.ESME_RSYSERR);
      }
    });
  }

  private closed(conn: Connection, why: 'closed' | 'unbind' | 'idle'): void {
    if (conn.closed) return;
    conn.closed = true;
    this.connections.delete(conn);
    const bound = conn.bound;
    if (!bound) return;
    this.pump.lost(bound);
    this.host.logger.info(
      {
        event: 'smpp.unbind',
        account: bound.account.username,
        bind_type: bound.kind,
        remote: conn.remote,
        why,
        submits: bound.submits,
      },
      'SMPP unbind',
    );
    void deleteSmppBind(this.host.store.db, bound.id).catch((err) =>
      this.host.logger.error({ err, event: 'smpp.bind_row_failed' }, 'SMPP bind row could not be removed'),
    );
  }

  private nack(conn: Connection, pdu: smpp.PDU, status: number): void {
    const seq = Number.isInteger(pdu.sequence_number) ? pdu.sequence_number : 0;
    sendPdu(conn.session, new smpp.PDU('generic_nack', { sequence_number: seq, command_status: status }));
  }

  private handle(conn: Connection, pdu: smpp.PDU): void {
    if (conn.closed) return;
    conn.lastPduAt = this.host.clock();
    if (pdu.isResponse()) return; // deliver_sm_resp reach their callbacks in the package
    const command = pdu.command;
    if (BIND_COMMANDS.has(command)) return void this.bind(conn, pdu);
    switch (command) {
      case 'enquire_link':
        sendPdu(conn.session, pdu.response());
        return;
      case 'unbind':
        sendPdu(conn.session, pdu.response(), () => conn.session.close());
        this.closed(conn, 'unbind');
        return;
      case 'submit_sm':
      case 'submit_multi':
      case 'query_sm':
      case 'cancel_sm':
        return this.request(conn, pdu);
      case 'unknown':
        this.metrics.nacks.inc({ why: 'unknown_command' });
        this.nack(conn, pdu, SMPP_STATUS.ESME_RINVCMDID);
        return;
      default:
        // A command this server does not take (replace_sm, data_sm, deliver_sm, outbind, ...).
        this.metrics.nacks.inc({ why: 'not_served' });
        if (smpp.commands[`${command}_resp`])
          sendPdu(conn.session, pdu.response({ command_status: SMPP_STATUS.ESME_RINVCMDID }));
        else this.nack(conn, pdu, SMPP_STATUS.ESME_RINVCMDID);
    }
  }

  private async bind(conn: Connection, pdu: smpp.PDU): Promise<void> {
    if (conn.bound || conn.binding) {
      sendPdu(conn.session, pdu.response({ command_status: SMPP_STATUS.ESME_RALYBND }));
      return;
    }
    conn.binding = true;
    const kind = pdu.command.slice('bind_'.length) as BindKind;
    const systemId = typeof pdu.system_id === 'string' ? pdu.system_id : '';
    const { store, clock, logger, node } = this.host;
    try {
      const now = clock();
      const outcome = await authenticateBind(store.db, {
        systemId,
        password: typeof pdu.password === 'string' ? pdu.password : '',
        remoteAddress: conn.remote,
        tls: conn.tls,
        now,
        liveSince: now - this.host.config.node.leaseMs,
      });
      if (conn.closed) return;
      if (!outcome.ok) {
        this.metrics.bindRefusals.inc({ reason: outcome.reason });
        logger.warn(
          {
            event: 'smpp.bind_refused',
            system_id: systemId.slice(0, 16),
            bind_type: kind,
            remote: conn.remote,
            tls: conn.tls,
            reason: outcome.reason,
          },
          'SMPP bind refused',
        );
        sendPdu(conn.session, pdu.response({ command_status: outcome.status }), () => conn.session.close());
        return;
      }
      const bound: Bound = {
        id: `${node.name}/${randomUUID()}`,
        accountId: Number(outcome.account.id),
        account: outcome.account,
        smpp: outcome.smpp,
        kind,
        since: now,
        session: conn.session,
        inFlight: 0,
        submits: 0,
        delivering: 0,
        window: outcome.smpp.windowSize,
        rows: new Set(),
      };
      await insertSmppBind(store.db, {
        id: bound.id,
        accountId: bound.accountId,
        node: node.name,
        bindType: kind,
        remoteAddress: conn.remote,
        tls: conn.tls,
        since: now,
      });
      if (conn.closed) {
        await deleteSmppBind(store.db, bound.id);
        return;
      }
      conn.bound = bound;
      sendPdu(conn.session, pdu.response({ system_id: 'Yona' }));
      logger.info(
        {
          event: 'smpp.bind',
          account: outcome.account.username,
          bind_type: kind,
          remote: conn.remote,
          tls: conn.tls,
          node: node.name,
        },
        'SMPP bind',
      );
      if (kind !== 'transmitter') this.pump.wake();
    } catch (err) {
      logger.error({ err, event: 'smpp.bind_failed' }, 'SMPP bind failed');
      sendPdu(conn.session, pdu.response({ command_status: SMPP_STATUS.ESME_RBINDFAIL }), () => conn.session.close());
    } finally {
      conn.binding = false;
    }
  }

  // submit_sm, submit_multi, query_sm and cancel_sm: bound, within the window (and the rate, for submits).
  private request(conn: Connection, pdu: smpp.PDU): void {
    const bound = conn.bound;
    const startedAt = this.host.clock();
    const isSubmit = pdu.command === 'submit_sm' || pdu.command === 'submit_multi';
    if (!bound || (isSubmit && bound.kind === 'receiver')) {
      sendPdu(conn.session, pdu.response({ command_status: SMPP_STATUS.ESME_RINVBNDSTS }));
      return;
    }
    if (bound.inFlight >= bound.smpp.windowSize) {
      if (isSubmit) this.metrics.submits.inc({ command_status: String(SMPP_STATUS.ESME_RMSGQFUL) });
      sendPdu(conn.session, pdu.response({ command_status: SMPP_STATUS.ESME_RMSGQFUL }));
      return;
    }
    if (isSubmit) {
      let rate = this.rates.get(bound.accountId);
      if (!rate) this.rates.set(bound.accountId, (rate = new SubmitRate()));
      if (!rate.take(bound.smpp.submitsPerSecond, startedAt)) {
        this.metrics.submits.inc({ command_status: String(SMPP_STATUS.ESME_RTHROTTLED) });
        sendPdu(conn.session, pdu.response({ command_status: SMPP_STATUS.ESME_RTHROTTLED }));
        return;
      }
      bound.submits++;
    }
    bound.inFlight++;
    const work =
      pdu.command === 'query_sm'
        ? this.query(conn, pdu)
        : pdu.command === 'cancel_sm'
          ? this.cancel(conn, pdu)
          : this.submit(conn, pdu, startedAt);
    work.catch((err) => {
      this.host.logger.error({ err, event: 'smpp.request_failed', command: pdu.command }, 'SMPP request failed');
      this.answer(conn, pdu, { command_status: SMPP_STATUS.ESME_RSYSERR });
    });
  }

  private answer(conn: Connection, pdu: smpp.PDU, fields: smpp.PduFields): void {
    if (conn.bound) conn.bound.inFlight = Math.max(0, conn.bound.inFlight - 1);
    if (!conn.closed) sendPdu(conn.session, pdu.response(fields));
  }

  private answerSubmit(conn: Connection, pdu: smpp.PDU, fields: smpp.PduFields, startedAt: number): void {
    this.metrics.submits.inc({ command_status: String(fields.command_status ?? 0) });
    this.metrics.submitSeconds.observe((this.host.clock() - startedAt) / 1000);
    this.answer(conn, pdu, fields);
  }

  private async submit(conn: Connection, pdu: smpp.PDU, startedAt: number): Promise<void> {
    const bound = conn.bound!;
    const reading = readSubmit(pdu);
    if (!reading.ok) return this.answerSubmit(conn, pdu, { command_status: reading.status }, startedAt);
    const submit = reading.submit;
    let parts: HeldPart[] = [{ conn, pdu, submit, startedAt }];
    if (submit.part) {
      const key = [
        bound.accountId,
        submit.source,
        submit.destinations.join(','),
        submit.part.ref,
        submit.part.total,
      ].join('|');
      const group = this.held.add(key, submit.part.total, submit.part.seq, parts[0]);
      if (!group) return;
      parts = group;
    }
    const whole: ReadSubmit = { ...parts[0].submit, text: parts.map((p) => p.submit.text).join('') };
    const now = this.host.clock();
    if (whole.validityUntil !== undefined && whole.validityUntil <= now)
      return this.answerAll(parts, { command_status: SMPP_STATUS.ESME_RINVEXPIRY });
    const doc: Record<string, unknown> = {
      source: whole.source,
      destinations: { phone: whole.destinations },
      message: whole.text,
      includes_international: '1',
      registered_delivery: whole.registeredDelivery,
    };
    if (whole.validityUntil !== undefined) doc.validity_until = whole.validityUntil;
    if (whole.scheduleAt !== undefined && whole.scheduleAt > now + 60_000)
      doc.timing = formatShort(whole.scheduleAt, bound.account.time_zone);
    const reply = await runOperation(this.app, bound.account, smppSubmit, doc);
    const status = submitStatusFor(reply.status);
    if (status !== SMPP_STATUS.ESME_ROK) {
      this.host.logger.debug(
        { event: 'smpp.submit_refused', account: bound.account.username, status: reply.status, command_status: status },
        reply.message,
      );
      return this.answerAll(parts, { command_status: status });
    }
    const messageId = String(reply.campaign_id);
    for (const p of parts) {
      const fields: smpp.PduFields = { message_id: messageId };
      if (p.pdu.command === 'submit_multi') fields.unsuccess_sme = unsuccessful(p.submit, reply.rejected ?? []);
      this.answerSubmit(p.conn, p.pdu, fields, p.startedAt);
    }
  }

  private answerAll(parts: HeldPart[], fields: smpp.PduFields): void {
    for (const p of parts) this.answerSubmit(p.conn, p.pdu, { ...fields }, p.startedAt);
  }

  private async query(conn: Connection, pdu: smpp.PDU): Promise<void> {
    const bound = conn.bound!;
    const id = typeof pdu.message_id === 'string' && /^\d{1,15}$/.test(pdu.message_id) ? Number(pdu.message_id) : 0;
    const found = id > 0 ? await findSmppMessageState(this.host.store.db, id, bound.accountId) : undefined;
    if (!found) return this.answer(conn, pdu, { command_status: SMPP_STATUS.ESME_RQUERYFAIL });
    const state = messageState(found.state, found.status);
    const final = state !== MESSAGE_STATE.ENROUTE && state !== MESSAGE_STATE.ACCEPTED && found.statusAt !== null;
    this.answer(conn, pdu, {
      message_id: String(id),
      final_date: final ? formatSmppTime(found.statusAt!) : '',
      message_state: state,
      error_code: 0,
    });
  }

  private async cancel(conn: Connection, pdu: smpp.PDU): Promise<void> {
    const bound = conn.bound!;
    const id = typeof pdu.message_id === 'string' && /^\d{1,15}$/.test(pdu.message_id) ? Number(pdu.message_id) : 0;
    const submitted = id > 0 ? await findSmppSubmit(this.host.store.db, id, bound.accountId) : undefined;
    if (!submitted) return this.answer(conn, pdu, { command_status: SMPP_STATUS.ESME_RINVMSGID });
    const reply = await runOperation(this.app, bound.account, cancel, { campaign_id: String(id) });
    this.answer(conn, pdu, {
      command_status: reply.status === 0 ? SMPP_STATUS.ESME_ROK : SMPP_STATUS.ESME_RCANCELFAIL,
    });
  }

  private closeIdle(): void {
    const now = this.host.clock();
    for (const conn of this.connections) {
      if (now - conn.lastPduAt < this.options.idleMs || conn.binding) continue;
      if (conn.bound) sendPdu(conn.session, new smpp.PDU('unbind', {}));
      this.closed(conn, 'idle');
      setTimeout(() => conn.session.destroy(), 1000).unref();
    }
  }

  private async refresh(): Promise<void> {
    const now = this.host.clock();
    const binds = [...this.connections].flatMap((c) =>
      c.bound
        ? [
            {
              id: c.bound.id,
              submits: c.bound.submits,
              submitsPerSecond: this.rates.get(c.bound.accountId)?.perSecond(now) ?? 0,
            },
          ]
        : [],
    );
    try {
      await refreshSmppBinds(this.host.store.db, binds, now);
      await deleteStaleSmppBinds(this.host.store.db, now - 3 * this.host.config.node.leaseMs);
    } catch (err) {
      this.host.logger.error({ err, event: 'smpp.bind_row_failed' }, 'SMPP binds could not be refreshed');
    }
  }
}

/** SMPP v3.4 message_state values. */
export const MESSAGE_STATE = {
  ENROUTE: 1,
  DELIVERED: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIVERABLE: 5,
  ACCEPTED: 6,
  UNKNOWN: 7,
  REJECTED: 8,
} as const;

/** query_sm's message_state for a message's state and delivery status. */
export function messageState(state: string, status: DeliveryStatus | null): number {
  if (state === 'cancelled') return MESSAGE_STATE.DELETED;
  if (state === 'skipped') return MESSAGE_STATE.REJECTED;
  if (status === null || status === DELIVERY.SUBMITTED) return MESSAGE_STATE.ENROUTE;
  switch (status) {
    case DELIVERY.DELIVERED:
    case DELIVERY.DELIVERED_LEGACY:
      return MESSAGE_STATE.DELIVERED;
    case DELIVERY.EXPIRED:
    case DELIVERY.TIMEOUT:
      return MESSAGE_STATE.EXPIRED;
    case DELIVERY.DELETED:
      return MESSAGE_STATE.DELETED;
    case DELIVERY.REJECTED:
    case DELIVERY.BLOCKED:
      return MESSAGE_STATE.REJECTED;
    case DELIVERY.UNKNOWN:
      return MESSAGE_STATE.UNKNOWN;
    default:
      return MESSAGE_STATE.UNDELIVERABLE;
  }
}

// submit_multi_resp's unsuccess_sme: the destinations the send refused, as the customer wrote them.
function unsuccessful(
  submit: ReadSubmit,
  rejected: Array<{ phone: string; reason: string }>,
): Array<{ dest_addr_ton: number; dest_addr_npi: number; destination_addr: string; error_status_code: number }> {
  return rejected.flatMap((r) => {
    const i = submit.destinations.indexOf(r.phone);
    if (i < 0) return [];
    const g = submit.given[i];
    const code = /block/i.test(r.reason) ? SMPP_STATUS.YONA_RBLOCKED : SMPP_STATUS.ESME_RINVDSTADR;
    return [{ dest_addr_ton: g.ton, dest_addr_npi: g.npi, destination_addr: g.address, error_status_code: code }];
  });
}

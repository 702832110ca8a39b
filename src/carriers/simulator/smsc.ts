// The bundled SMSC simulator: a real SMPP server that accepts submits, keeps a log, sends receipts and MO.
import smpp from 'smpp';
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeFromSmpp } from '../smpp/encoding.ts';
import { Reassembler } from '../smpp/concat.ts';
import { rawPayload, sendPdu, STATUS } from '../smpp/pdu.ts';
import { inboundFields, receiptFields } from './build.ts';
import { startControlServer } from './control.ts';
import type { CallSimulator, ReceivedCall } from './uas.ts';
import { DeliveryQueue, type DeliveryTarget } from './deliveries.ts';
import { SimulatorIds, type SimIdFormat } from './ids.ts';
import { MessageLog, type ReceivedMessage } from './log.ts';
import { DEFAULT_RULES, outcomeFor, type OutcomeRule } from './outcomes.ts';

export type { ReceivedMessage } from './log.ts';

/** Simulator settings; credentials unset means any system_id/password binds. */
export interface SimulatorOptions {
  systemId?: string;
  password?: string;
  /** Delay between submit_sm and its receipt (200 ms). */
  receiptDelayMs?: number;
  /** Extra outcome rules, checked before the built-in ones. */
  rules?: OutcomeRule[];
  /** Start the HTTP control channel on 127.0.0.1 at this port (0 = ephemeral); unset = no channel. */
  controlPort?: number;
  /** Messages kept in the log (100 000); the oldest go first. */
  maxLog?: number;
  /** Serve SMPP over TLS with this PEM key and certificate. */
  tls?: { key: string; cert: string };
  /** Ids in submit_sm_resp vs receipts: the same text (default), or hex on one side and decimal on the other. */
  idFormat?: SimIdFormat;
  /** Address SMPP listens on (127.0.0.1). */
  host?: string;
  /** Most sessions bound at once, as a carrier's bind limit; a bind beyond it is refused ESME_RBINDFAIL. Unset = no limit. */
  maxBinds?: number;
}

/** Simulator counters. */
export interface SimulatorStats {
  connections: number;
  binds: number;
  unbinds: number;
  submitsReceived: number;
  messagesReceived: number;
  /** Messages whose (destination, text) had been received before. */
  duplicates: number;
  throttled: number;
  failedOnPurpose: number;
  receiptsSent: number;
  inboundSent: number;
  /** Most submit_sm seen unanswered at once on one session (checks a client's window). */
  maxInFlight: number;
  /** Sessions bound now. */
  boundNow: number;
  /** Most sessions ever bound at the same moment. */
  maxBoundAtOnce: number;
  /** Binds refused because maxBinds sessions were already bound. */
  bindsRefused: number;
}

interface Bound extends DeliveryTarget {
  kind: 'transceiver' | 'transmitter' | 'receiver';
  inFlight: number;
  /** Remote address:port of the session. */
  peer: string;
}

type Part = { text: string; id: string };

const RECEIPT_TICK_MS = 5;
const ESME_RINVTLVVAL = 0xc4;
// A message_payload TLV holds up to 64 KiB; the package refuses PDUs over 16 KiB unless told otherwise.
const MAX_PDU_LENGTH = 16 + 0xffff + 1024;
if (smpp.PDU.maxLength < MAX_PDU_LENGTH) smpp.PDU.maxLength = MAX_PDU_LENGTH;

/** SMSC simulator speaking SMPP 3.4 on 127.0.0.1; see SimulatorOptions and the test controls below. */
export class SmscSimulator {
  private readonly server: smpp.Server;
  private readonly bound = new Map<smpp.Session, Bound>();
  private readonly deliveries = new DeliveryQueue(() =>
    [...this.bound.values()].filter((b) => b.kind !== 'transmitter'),
  );
  private readonly parts = new Reassembler<Part>();
  private readonly log: MessageLog;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly ticks = new Map<number, Array<() => void>>();
  private readonly rules: OutcomeRule[];
  private readonly ids: SimulatorIds;
  private mref = 0;
  private receiptDelayMs: number;
  private respDelayMs = 0;
  private throttling = false;
  private silent = false;
  private failCount = 0;
  private failStatus = 0;
  private control: HttpServer | undefined;
  private readonly counters = {
    connections: 0,
    binds: 0,
    unbinds: 0,
    submitsReceived: 0,
    throttled: 0,
    failedOnPurpose: 0,
    receiptsSent: 0,
    inboundSent: 0,
    maxInFlight: 0,
    maxBoundAtOnce: 0,
    bindsRefused: 0,
  };

  constructor(private readonly options: SimulatorOptions = {}) {
    this.receiptDelayMs = options.receiptDelayMs ?? 200;
    this.rules = [...(options.rules ?? []), ...DEFAULT_RULES];
    this.log = new MessageLog(options.maxLog);
    this.ids = new SimulatorIds(options.idFormat);
    this.server = smpp.createServer({ ...(options.tls ?? {}) }, (session) => this.accept(session));
  }

  /** Listens on the configured host, 127.0.0.1 by default (and starts the control channel if configured); resolves with the SMPP port. */
  async start(port = 0): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.options.host ?? '127.0.0.1', () => resolve());
    });
    if (this.options.controlPort !== undefined) this.control = await startControlServer(this, this.options.controlPort);
    return this.port;
  }

  /** The SMPP port (after start). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The HTTP control channel's port, when it runs. */
  controlPort(): number | undefined {
    return this.control ? (this.control.address() as AddressInfo).port : undefined;
  }

  /** Closes every connection and both listeners. */
  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.ticks.clear();
    this.deliveries.clear();
    this.disconnectAll();
    const closing = [new Promise<void>((resolve) => this.server.close(() => resolve()))];
    if (this.control) {
      const control = this.control;
      control.closeAllConnections();
      closing.push(new Promise<void>((resolve) => control.close(() => resolve())));
    }
    await Promise.all(closing);
  }

  private accept(session: smpp.Session): void {
    this.counters.connections++;
    session.socket.setNoDelay(true);
    session.on('error', () => session.destroy());
    session.on('close', () => {
      const bound = this.bound.get(session);
      this.bound.delete(session);
      if (bound) this.deliveries.lost(bound);
    });
    session.on('pdu', (pdu: smpp.PDU) => {
      if (!this.silent) this.handle(session, pdu);
    });
  }

  private handle(session: smpp.Session, pdu: smpp.PDU): void {
    const bound = this.bound.get(session);
    if (pdu.isResponse()) {
      if (bound && pdu.command === 'deliver_sm_resp') this.deliveries.answered(bound, pdu);
      return;
    }
    switch (pdu.command) {
      case 'bind_transceiver':
      case 'bind_transmitter':
      case 'bind_receiver':
        return this.bind(session, pdu);
      case 'enquire_link':
        sendPdu(session, pdu.response());
        return;
      case 'unbind':
        this.counters.unbinds++;
        this.bound.delete(session);
        if (bound) this.deliveries.lost(bound);
        sendPdu(session, pdu.response(), () => session.close());
        return;
      case 'submit_sm':
        if (!bound || bound.kind === 'receiver') {
          sendPdu(session, pdu.response({ command_status: STATUS.INVBNDSTS }));
          return;
        }
        return this.submit(bound, pdu);
      default: // generic_nack for unknown ids; ESME_RINVCMDID for commands we do not serve
        if (pdu.command === 'unknown') sendPdu(session, pdu.response());
        else if (smpp.commands[`${pdu.command}_resp`]) sendPdu(session, pdu.response({ command_status: 0x03 }));
    }
  }

  private bind(session: smpp.Session, pdu: smpp.PDU): void {
    const { systemId, password } = this.options;
    let status: number = STATUS.OK;
    if (this.bound.has(session)) status = STATUS.ALYBND;
    else if (systemId !== undefined && pdu.system_id !== systemId) status = STATUS.INVSYSID;
    else if (password !== undefined && pdu.password !== password) status = STATUS.INVPASWD;
    else if (this.options.maxBinds !== undefined && this.bound.size >= this.options.maxBinds) {
      status = STATUS.BINDFAIL;
      this.counters.bindsRefused++;
    }
    if (status !== STATUS.OK) {
      sendPdu(session, pdu.response({ command_status: status }));
      return;
    }
    const kind = pdu.command.slice('bind_'.length) as Bound['kind'];
    const peer = `${session.socket.remoteAddress ?? ''}:${session.socket.remotePort ?? ''}`;
    this.bound.set(session, {
      session,
      kind,
      systemId: String(pdu.system_id ?? ''),
      inFlight: 0,
      outstanding: new Map(),
      peer,
    });
    this.counters.binds++;
    this.counters.maxBoundAtOnce = Math.max(this.counters.maxBoundAtOnce, this.bound.size);
    sendPdu(session, pdu.response({ system_id: 'YonaSim' }));
    this.deliveries.flush();
  }

  private submit(bound: Bound, pdu: smpp.PDU): void {
    this.counters.submitsReceived++;
    const reply = (fields: smpp.PduFields) => this.answer(bound, pdu, fields);
    bound.inFlight++;
    this.counters.maxInFlight = Math.max(this.counters.maxInFlight, bound.inFlight);
    if (this.throttling) {
      this.counters.throttled++;
      return reply({ command_status: STATUS.THROTTLED });
    }
    if (this.failCount > 0) {
      this.failCount--;
      this.counters.failedOnPurpose++;
      return reply({ command_status: this.failStatus });
    }
    const destination = String(pdu.destination_addr ?? '');
    if (!/^\d{6,15}$/.test(destination)) return reply({ command_status: STATUS.INVDSTADR });
    const source = String(pdu.source_addr ?? '');
    if (!source) return reply({ command_status: STATUS.INVSRCADR });
    const esmClass = typeof pdu.esm_class === 'number' ? pdu.esm_class : 0;
    const dataCoding = typeof pdu.data_coding === 'number' ? pdu.data_coding : 0;
    // The whole text in message_payload (SMPP 3.4 5.3.2.32) needs an empty short_message.
    const viaPayload = rawPayload({ message_payload: pdu.message_payload }).length > 0;
    if (viaPayload && rawPayload({ short_message: pdu.short_message }).length > 0)
      return reply({ command_status: ESME_RINVTLVVAL });
    let decoded: ReturnType<typeof decodeFromSmpp>;
    try {
      decoded = decodeFromSmpp(rawPayload(pdu), dataCoding, (esmClass & 0x40) !== 0);
    } catch {
      return reply({ command_status: 0x104 }); // ESME_RINVDCS
    }
    const { submit: id, receipt: receiptId } = this.ids.next();
    reply({ message_id: id });
    const udh = decoded.udh && decoded.udh.total > 1 ? decoded.udh : undefined;
    if (udh) {
      const group = this.parts.add(`${source}|${destination}|${udh.ref}|${udh.total}`, udh.total, udh.seq, {
        text: decoded.text,
        id,
      });
      if (group) {
        this.parts.forget(group.key);
        this.log.record({
          destination,
          source,
          text: group.parts.map((p) => p.text).join(''),
          parts: udh.total,
          dataCoding,
          messageIds: group.parts.map((p) => p.id),
          receivedAt: Date.now(),
          peer: bound.peer,
        });
      }
    } else {
      this.log.record({
        destination,
        source,
        text: decoded.text,
        parts: 1,
        dataCoding,
        messageIds: [id],
        receivedAt: Date.now(),
        peer: bound.peer,
        ...(viaPayload ? { messagePayload: true } : {}),
      });
    }
    const registered = typeof pdu.registered_delivery === 'number' ? pdu.registered_delivery : 0;
    if (registered & 0x03) this.scheduleReceipt(bound, pdu, receiptId, decoded.text, id);
  }

  // Answers a submit now or after the configured response delay (which keeps submits in the client's window).
  private answer(bound: Bound, pdu: smpp.PDU, fields: smpp.PduFields): void {
    const send = () => {
      bound.inFlight--;
      sendPdu(bound.session, pdu.response(fields));
    };
    if (this.respDelayMs <= 0) return send();
    this.later(this.respDelayMs, send);
  }

  private scheduleReceipt(bound: Bound, pdu: smpp.PDU, id: string, text: string, submitId: string): void {
    const outcome = outcomeFor(String(pdu.destination_addr), this.rules);
    if (outcome.receipt === false) return;
    const submitAt = Date.now();
    this.atTick(submitAt + this.receiptDelayMs, () => {
      this.counters.receiptsSent++;
      void this.deliveries.push(receiptFields(pdu, id, outcome, submitAt, text), bound.systemId);
      this.log.receiptSent(submitId, outcome.state);
      const late = outcome.late;
      if (!late) return;
      this.atTick(Date.now() + late.afterMs, () => {
        this.counters.receiptsSent++;
        void this.deliveries.push(receiptFields(pdu, id, { suffix: '', ...late }, submitAt, text), bound.systemId);
      });
    });
  }

  // Runs `fn` at `at` (rounded up to RECEIPT_TICK_MS): receipts due together share one timer, so their
  // deliver_sm leave in one socket write instead of one write each.
  private atTick(at: number, fn: () => void): void {
    const due = Math.ceil(at / RECEIPT_TICK_MS) * RECEIPT_TICK_MS;
    const bucket = this.ticks.get(due);
    if (bucket) {
      bucket.push(fn);
      return;
    }
    this.ticks.set(due, [fn]);
    this.later(Math.max(0, due - Date.now()), () => {
      const fns = this.ticks.get(due) ?? [];
      this.ticks.delete(due);
      for (const f of fns) f();
    });
  }

  private later(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  /** Messages received so far (optionally only those to one destination), oldest first. */
  messages(filter: { to?: string } = {}): ReceivedMessage[] {
    return this.log.list(filter);
  }

  private callSide: CallSimulator | undefined;

  /** Serves the calls of the simulator's SIP side on this control channel too (`yona sim calls`). */
  attachCalls(calls: CallSimulator): void {
    this.callSide = calls;
  }

  /** Calls the attached SIP side took (none without one), oldest first. */
  calls(filter: { to?: string } = {}): ReceivedCall[] {
    return this.callSide?.calls(filter) ?? [];
  }

  /** Counters since start. */
  stats(): SimulatorStats {
    return {
      ...this.counters,
      boundNow: this.bound.size,
      messagesReceived: this.log.received,
      duplicates: this.log.duplicates,
    };
  }

  /**
   * Sends a mobile-originated SMS to a bound receiver/transceiver (UCS-2 when needed, concatenated when long).
   * Resolves when every part was acknowledged or after `waitMs` (delivered false; the parts stay queued).
   */
  async sendInbound(
    mo: { from: string; to: string; text: string; systemId?: string },
    waitMs = 5000,
  ): Promise<{ parts: number; delivered: boolean }> {
    this.mref = (this.mref + 1) % 256;
    const parts = inboundFields(mo, this.mref);
    this.counters.inboundSent += parts.length;
    const acks = parts.map((fields) => this.deliveries.push(fields, mo.systemId));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), waitMs);
    });
    const delivered = await Promise.race([Promise.all(acks).then(() => true), timeout]);
    clearTimeout(timer);
    return { parts: parts.length, delivered };
  }

  /** While on, every submit_sm is answered ESME_RTHROTTLED. */
  throttle(on: boolean): void {
    this.throttling = on;
  }

  /** The next `n` submit_sm are answered with `commandStatus`. */
  failNext(n: number, commandStatus: number): void {
    this.failCount = n;
    this.failStatus = commandStatus;
  }

  /** Drops every connection at once (no unbind), as a network failure would. */
  disconnectAll(): void {
    for (const session of [...this.server.sessions]) session.destroy();
  }

  /** Delay before receipts are sent. */
  setReceiptDelay(ms: number): void {
    this.receiptDelayMs = ms;
  }

  /** Delay before submit_sm_resp (keeps submits unacknowledged in the client's window). */
  setSubmitResponseDelay(ms: number): void {
    this.respDelayMs = ms;
  }

  /** While on, the simulator reads but never answers anything: a peer that went silent without closing TCP. */
  silence(on: boolean): void {
    this.silent = on;
  }
}

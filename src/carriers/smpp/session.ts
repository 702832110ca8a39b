// One SMPP bind over TCP/TLS: connect, bind, enquire_link with a response timeout, request/response
// matching with timeouts, window accounting, and reconnect with exponential backoff.
import smpp from 'smpp';
import type { ConnectionOptions } from 'node:tls';
import { sendPdu, STATUS, statusName } from './pdu.ts';
import { describeTlsFailure } from './tls.ts';
import { backoffDelay } from './window.ts';

/** Minimal logger (pino-compatible). */
import type { CarrierLogger as SmppLogger } from '../types.ts';

export type { SmppLogger };

/** Connection settings one session needs (a subset of the carrier config). */
export interface SessionConfig {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  tls: boolean;
  /** Where tlsOptions.ca came from (named in the log when the certificate is not trusted). */
  tlsCa?: string;
  /** Complete options for tls.connect (CA, servername); see tlsConnectOptions. */
  tlsOptions?: Omit<ConnectionOptions, 'socket'>;
  enquireLinkMs: number;
  responseTimeoutMs: number;
  reconnectBaseMs: number;
  reconnectMaxMs: number;
}

/** What a bind is for: both directions, or one of a transmitter+receiver pair. */
export type BindKind = 'transceiver' | 'transmitter' | 'receiver';

/** Callbacks from a session to its carrier. */
export interface SessionHooks {
  /** The session is bound (again) and can take submits. */
  bound(session: SmppSession): void;
  /** A window slot was released. */
  slotFreed(session: SmppSession): void;
  /** The session was bound and its connection closed (it reconnects unless stopped). */
  lost?(session: SmppSession): void;
  /** A deliver_sm arrived; resolves to the command_status for its deliver_sm_resp. */
  deliver(pdu: smpp.PDU): Promise<number>;
  /** Something went wrong with the connection (said in a few words, for health reports). */
  failed?(why: string): void;
}

/** A request's outcome: the response PDU, or why there is none. */
export type RequestResult =
  | { pdu: smpp.PDU }
  | { error: 'timeout' | 'disconnected' | 'not bound' | 'encode failed'; detail?: string };

interface Pending {
  resolve(result: RequestResult): void;
  timer: NodeJS.Timeout;
}

/** How long an answer is still taken after its request timed out, in response timeouts. */
const LATE_ANSWER_TIMEOUTS = 10;

/** One bind to the SMSC that keeps itself connected until `stop()`. */
export class SmppSession {
  state: 'idle' | 'connecting' | 'bound' | 'unbinding' | 'closed' = 'idle';
  /** Window slots in use (submits sent or about to be sent, not yet answered). */
  used = 0;
  private conn: smpp.Session | undefined;
  private readonly pending = new Map<number, Pending>();
  /** Requests that timed out but whose answer is still wanted (a submit the SMSC may yet accept). */
  private readonly late = new Map<number, { answer: (pdu: smpp.PDU) => void; timer: NodeJS.Timeout }>();
  private attempts = 0;
  private stopping = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private bindTimer: NodeJS.Timeout | undefined;
  private enquireTimer: NodeJS.Timeout | undefined;
  private enquireOutstanding = false;

  constructor(
    readonly label: string,
    readonly kind: BindKind,
    private readonly config: SessionConfig,
    private readonly hooks: SessionHooks,
    private readonly log: SmppLogger,
  ) {}

  /** Whether submit_sm may go out on this bind now. */
  get canSubmit(): boolean {
    return this.state === 'bound' && this.kind !== 'receiver';
  }

  /** Starts connecting (and keeps reconnecting until stop). */
  start(): void {
    this.stopping = false;
    this.connect();
  }

  private connect(): void {
    this.reconnectTimer = undefined;
    if (this.stopping) return;
    this.state = 'connecting';
    const { host, port, tls, tlsOptions } = this.config;
    const conn = smpp.connect({ ...(tlsOptions ?? {}), host, port, tls });
    this.conn = conn;
    conn.socket.setNoDelay(true); // Nagle cost 3-4x throughput on loopback
    // A PDU parse error leaves the package's reader stuck, so any error ends this connection.
    conn.on('error', (err: NodeJS.ErrnoException) => {
      const tlsFailure = tls ? describeTlsFailure(err, this.config) : undefined;
      if (tlsFailure) {
        this.log.error(
          { session: this.label, address: `${host}:${port}`, ...tlsFailure, err: err.message },
          'smpp TLS handshake failed; not bound, retrying with backoff',
        );
      } else {
        this.log.warn({ session: this.label, err: err.message }, 'smpp connection error');
      }
      this.hooks.failed?.(`connection error: ${err.message}`);
      conn.destroy();
    });
    conn.on('close', () => this.closed(conn));
    conn.on('pdu', (pdu: smpp.PDU) => this.received(pdu));
    this.bindTimer = setTimeout(() => {
      this.log.warn({ session: this.label }, 'smpp connect/bind timed out');
      this.hooks.failed?.('connect/bind timed out');
      conn.destroy();
    }, this.config.responseTimeoutMs * 2);
    conn.once(tls ? 'secureConnect' : 'connect', () => {
      conn.socket.setNoDelay(true);
      void this.bind(conn);
    });
  }

  private async bind(conn: smpp.Session): Promise<void> {
    const { systemId, password, systemType } = this.config;
    const fields = { system_id: systemId, password, system_type: systemType ?? '', interface_version: 0x34 };
    const result = await this.request(new smpp.PDU(`bind_${this.kind}`, fields), true);
    if (conn !== this.conn) return;
    clearTimeout(this.bindTimer);
    if (!('pdu' in result) || result.pdu.command_status !== STATUS.OK) {
      const why = 'pdu' in result ? statusName(result.pdu.command_status) : result.error;
      this.log.warn({ session: this.label, why }, 'smpp bind failed');
      this.hooks.failed?.(`bind refused: ${why}`);
      conn.destroy();
      return;
    }
    this.state = 'bound';
    this.attempts = 0;
    this.log.info({ session: this.label }, 'smpp bound'); // the label names the bind's kind
    this.enquireTimer = setInterval(() => this.enquireLink(conn), this.config.enquireLinkMs);
    this.hooks.bound(this);
  }

  // The package never notices a silently dropped peer, so an unanswered enquire_link closes the connection.
  private enquireLink(conn: smpp.Session): void {
    if (this.enquireOutstanding || conn !== this.conn || this.state !== 'bound') return;
    this.enquireOutstanding = true;
    void this.request(new smpp.PDU('enquire_link'), true).then((result) => {
      this.enquireOutstanding = false;
      if ('error' in result && result.error === 'timeout' && conn === this.conn) {
        this.log.warn({ session: this.label }, 'enquire_link unanswered; reconnecting');
        this.hooks.failed?.('enquire_link unanswered');
        conn.destroy();
      }
    });
  }

  /**
   * Sends a request PDU and waits for its response (or timeout/disconnect). When it times out, `lateAnswer`
   * still gets the response if it comes on this connection within LATE_ANSWER_TIMEOUTS response timeouts.
   */
  request(pdu: smpp.PDU, beforeBind = false, lateAnswer?: (pdu: smpp.PDU) => void): Promise<RequestResult> {
    const conn = this.conn;
    if (!conn || (!beforeBind && this.state !== 'bound' && this.state !== 'unbinding')) {
      return Promise.resolve({ error: 'not bound' });
    }
    let sent: boolean;
    try {
      sent = sendPdu(conn, pdu);
    } catch (err) {
      return Promise.resolve({ error: 'encode failed', detail: (err as Error).message });
    }
    if (!sent) return Promise.resolve({ error: 'disconnected' });
    const seq = pdu.sequence_number;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        if (lateAnswer) this.awaitLate(seq, lateAnswer);
        resolve({ error: 'timeout' });
      }, this.config.responseTimeoutMs);
      this.pending.set(seq, { resolve, timer });
    });
  }

  private awaitLate(seq: number, answer: (pdu: smpp.PDU) => void): void {
    const timer = setTimeout(() => this.late.delete(seq), this.config.responseTimeoutMs * LATE_ANSWER_TIMEOUTS);
    timer.unref();
    this.late.set(seq, { answer, timer });
  }

  /** Sends one submit_sm in a window slot the caller reserved with `used++`; frees the slot when done. */
  async submit(fields: smpp.PduFields, lateAnswer?: (pdu: smpp.PDU) => void): Promise<RequestResult> {
    try {
      return await this.request(new smpp.PDU('submit_sm', fields), false, lateAnswer);
    } finally {
      this.used = Math.max(0, this.used - 1);
      this.hooks.slotFreed(this);
    }
  }

  private received(pdu: smpp.PDU): void {
    if (pdu.isResponse()) {
      const waiting = this.pending.get(pdu.sequence_number);
      if (!waiting) {
        const late = this.late.get(pdu.sequence_number);
        if (late) {
          this.late.delete(pdu.sequence_number);
          clearTimeout(late.timer);
          late.answer(pdu);
        }
        return; // otherwise an answer nobody waits for any more
      }
      this.pending.delete(pdu.sequence_number);
      clearTimeout(waiting.timer);
      waiting.resolve({ pdu });
      return;
    }
    const conn = this.conn;
    if (!conn) return;
    switch (pdu.command) {
      case 'enquire_link':
        sendPdu(conn, pdu.response());
        break;
      case 'unbind':
        this.log.info({ session: this.label }, 'smsc unbound us');
        sendPdu(conn, pdu.response(), () => conn.close());
        break;
      case 'deliver_sm':
      case 'data_sm':
        void this.hooks.deliver(pdu).then(
          (status) => sendPdu(conn, pdu.response({ command_status: status })),
          () => sendPdu(conn, pdu.response({ command_status: STATUS.X_T_APPN })),
        );
        break;
      default:
        // generic_nack for unknown commands, an empty resp for others that have one (e.g. outbind has none)
        if (pdu.command === 'unknown' || smpp.commands[`${pdu.command}_resp`]) sendPdu(conn, pdu.response());
    }
  }

  private closed(conn: smpp.Session): void {
    if (conn !== this.conn) return;
    this.conn = undefined;
    clearTimeout(this.bindTimer);
    clearInterval(this.enquireTimer);
    this.enquireOutstanding = false;
    const wasBound = this.state === 'bound';
    for (const [seq, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      this.pending.delete(seq);
      waiting.resolve({ error: 'disconnected' });
    }
    // Sequence numbers belong to a connection: no late answer can come now.
    for (const late of this.late.values()) clearTimeout(late.timer);
    this.late.clear();
    if (this.stopping) {
      this.state = 'closed';
      return;
    }
    this.state = 'idle';
    if (wasBound) {
      this.hooks.failed?.('connection closed');
      this.hooks.lost?.(this);
    }
    const delay = backoffDelay(this.attempts++, this.config.reconnectBaseMs, this.config.reconnectMaxMs);
    this.log[wasBound ? 'warn' : 'debug']({ session: this.label, delay }, 'smpp connection closed; reconnecting');
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** Unbinds (after in-flight submits are answered, up to responseTimeoutMs) and closes; no reconnect. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.reconnectTimer);
    const conn = this.conn;
    if (!conn) {
      this.state = 'closed';
      return;
    }
    const deadline = Date.now() + this.config.responseTimeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline && this.conn === conn) {
      await new Promise((r) => setTimeout(r, 10));
    }
    if (this.state === 'bound' && this.conn === conn) {
      this.state = 'unbinding';
      await this.request(new smpp.PDU('unbind'));
    }
    if (this.conn === conn) {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => conn.destroy(), this.config.responseTimeoutMs);
        conn.close(() => {
          clearTimeout(force);
          resolve();
        });
      });
    }
    this.state = 'closed';
  }
}

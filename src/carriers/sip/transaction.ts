// SIP client transactions as RFC 3261 section 17.1 has them, with RFC 6026's Accepted state for INVITE:
// - an INVITE client transaction (Calling, Proceeding, Completed, Accepted, Terminated): the INVITE resent on
//   timer A (T1, doubling) over UDP until a response, given up on timer B (64 x T1); a non-2xx final response
//   acknowledged inside the transaction (the ACK on the INVITE's branch and CSeq number) and its retransmissions
//   absorbed there until timer D; a 2xx handed to the transaction user, and each retransmitted 2xx too, for
//   timer M (64 x T1), since the ACK of a 2xx is the user's own;
// - a non-INVITE client transaction (Trying, Proceeding, Completed, Terminated): the request resent on timer E
//   (T1 doubling up to T2, T2 once proceeding), given up on timer F (64 x T1); retransmitted final responses
//   absorbed until timer K (T4).
// A response belongs to the transaction whose request carried its top Via branch and its CSeq number and method
// (17.1.3, with the number as a further check); one that matches none is handed back to the caller.
import { header, type SipMessage } from './message.ts';
import type { SipTransport } from './transport.ts';

/** RFC 3261's timer values (section 17.1.1.1 and table 4), in ms. */
export interface SipTimers {
  T1: number;
  T2: number;
  T4: number;
}

export const RFC_TIMERS: SipTimers = { T1: 500, T2: 4000, T4: 5000 };

/** The top Via's branch parameter of a message. */
export function branchOf(message: SipMessage): string | undefined {
  const via = header(message, 'via');
  return via ? /;\s*branch=([^;,\s]+)/i.exec(via)?.[1] : undefined;
}

/** A CSeq value's number and method, when it is well formed. */
export function cseqOf(message: SipMessage): { seq: number; method: string } | undefined {
  const m = /^\s*(\d{1,10})\s+([A-Za-z]+)\s*$/.exec(header(message, 'cseq') ?? '');
  return m ? { seq: Number(m[1]), method: m[2].toUpperCase() } : undefined;
}

/** What a transaction tells its user. */
export interface TransactionUser {
  /** A response the user must see: provisional and final ones, and (INVITE) each copy of a 2xx. */
  response(message: SipMessage): void;
  /** Timer B or F fired: no final response came. */
  timeout(): void;
}

/** The request a transaction carries: its text and what identifies it. */
export interface OutgoingRequest {
  method: string;
  text: string;
  branch: string;
  seq: number;
}

type State = 'calling' | 'trying' | 'proceeding' | 'completed' | 'accepted' | 'terminated';

/** One client transaction (INVITE or not); its layer creates it. */
export class ClientTransaction {
  state: State;
  /** The final response, once one came. */
  final: SipMessage | undefined;
  private timers: NodeJS.Timeout[] = [];
  private retransmitMs: number;

  constructor(
    readonly request: OutgoingRequest,
    private readonly layer: ClientTransactions,
    private readonly user: TransactionUser,
    /** For INVITE: the ACK of a non-2xx final response (built from the response's To). */
    private readonly ackFor?: (response: SipMessage) => string,
  ) {
    this.state = this.isInvite ? 'calling' : 'trying';
    this.retransmitMs = layer.timers.T1;
  }

  private get isInvite(): boolean {
    return this.request.method === 'INVITE';
  }

  /** Sends the request and starts its timers (A and B, or E and F). */
  start(): void {
    this.layer.transport.send(this.request.text);
    if (!this.layer.transport.reliable) this.after(this.retransmitMs, () => this.retransmit());
    this.after(64 * this.layer.timers.T1, () => {
      if (this.state === 'calling' || this.state === 'trying' || (this.state === 'proceeding' && !this.isInvite)) {
        this.terminate();
        this.user.timeout();
      }
    });
  }

  // Timer A (INVITE, doubling without bound until B) or E (doubling up to T2; T2 once proceeding).
  private retransmit(): void {
    const resending = this.isInvite ? this.state === 'calling' : this.state === 'trying' || this.state === 'proceeding';
    if (!resending) return;
    this.layer.transport.send(this.request.text);
    this.retransmitMs = this.isInvite
      ? this.retransmitMs * 2
      : this.state === 'proceeding'
        ? this.layer.timers.T2
        : Math.min(this.retransmitMs * 2, this.layer.timers.T2);
    this.after(this.retransmitMs, () => this.retransmit());
  }

  /** A response matched to this transaction. */
  receive(response: SipMessage): void {
    const status = response.status ?? 0;
    switch (this.state) {
      case 'calling':
      case 'trying':
      case 'proceeding':
        if (status < 200) {
          this.state = 'proceeding';
          this.user.response(response);
          return;
        }
        this.final = response;
        if (this.isInvite && status < 300) {
          // RFC 6026: Accepted, passing each 2xx to the user (which acknowledges it) until timer M.
          this.state = 'accepted';
          this.clear();
          this.after(64 * this.layer.timers.T1, () => this.terminate());
        } else {
          this.state = 'completed';
          this.clear();
          if (this.isInvite) this.layer.transport.send(this.ackFor!(response));
          // Timer D (INVITE: at least 32 s over UDP) or K (T4), none over a reliable transport.
          const wait = this.layer.transport.reliable ? 0 : this.isInvite ? 32_000 : this.layer.timers.T4;
          this.after(wait, () => this.terminate());
        }
        this.user.response(response);
        return;
      case 'accepted':
        if (status >= 200 && status < 300) this.user.response(response);
        return;
      case 'completed':
        // A retransmitted final response: the ACK again (INVITE), nothing for the user.
        if (this.isInvite && status >= 300) this.layer.transport.send(this.ackFor!(response));
        return;
      default:
        return;
    }
  }

  /** Ends the transaction at once (the call is over). */
  terminate(): void {
    this.state = 'terminated';
    this.clear();
    this.layer.forget(this);
  }

  private after(ms: number, fn: () => void): void {
    this.timers.push(setTimeout(fn, ms));
  }

  private clear(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers = [];
  }
}

/** The client transactions of one transport: creates them, and routes each response to its own. */
export class ClientTransactions {
  private readonly live = new Map<string, ClientTransaction>();

  constructor(
    readonly transport: SipTransport,
    readonly timers: SipTimers = RFC_TIMERS,
  ) {}

  private static key(branch: string, seq: number, method: string): string {
    return `${branch}\u0000${seq}\u0000${method}`;
  }

  /** Starts a transaction for `request`; `ackFor` builds the ACK of an INVITE's non-2xx final response. */
  start(request: OutgoingRequest, user: TransactionUser, ackFor?: (response: SipMessage) => string): ClientTransaction {
    const transaction = new ClientTransaction(request, this, user, ackFor);
    this.live.set(ClientTransactions.key(request.branch, request.seq, request.method), transaction);
    transaction.start();
    return transaction;
  }

  /** Hands a response to its transaction; false when it matches none (a stray or a late copy). */
  receive(response: SipMessage): boolean {
    const branch = branchOf(response);
    const cseq = cseqOf(response);
    if (!branch || !cseq) return false;
    const transaction = this.live.get(ClientTransactions.key(branch, cseq.seq, cseq.method));
    if (!transaction) return false;
    transaction.receive(response);
    return true;
  }

  forget(transaction: ClientTransaction): void {
    const { branch, seq, method } = transaction.request;
    const key = ClientTransactions.key(branch, seq, method);
    if (this.live.get(key) === transaction) this.live.delete(key);
  }

  /** Ends every transaction (the call is over; its transport closes). */
  close(): void {
    for (const t of [...this.live.values()]) t.terminate();
  }
}

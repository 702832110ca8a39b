// One outbound call over SIP (UDP or TCP) to a trunk, as a user agent client on RFC 3261's transactions
// (transaction.ts): INVITE with an SDP offer of PCMA and PCMU, digest authentication answering each 401/407
// challenge once, provisional responses, a ring timeout that CANCELs, the ACK of a 2xx sent for each copy of
// it, the message played over RTP on the media thread in the law the answer chose, then BYE. Requests from the
// trunk inside the call are answered (BYE ends the playback; one that cannot be parsed gets 400).
// The outcome says what a delivery report needs, with the SIP status that decided it.
import { randomInt } from 'node:crypto';
import { digestAuthorization, parseChallenge } from './digest.ts';
import { encodeG711, type G711Law } from '../../speech/g711.ts';
import { openMedia, type MediaSession } from './media.ts';
import {
  formatRequest,
  formatResponse,
  header,
  newBranch,
  parseSdp,
  parseSip,
  requestProblem,
  sdpOffer,
  sipToken,
  uriOf,
  type SipMessage,
} from './message.ts';
import { PAYLOAD_TYPE, playback, type StreamStats } from './rtp.ts';
import { ClientTransactions, RFC_TIMERS, type OutgoingRequest, type SipTimers } from './transaction.ts';
import { openTransport, type SipTransport, type SipTransportKind } from './transport.ts';

/** Where calls go and who they come from. */
export interface Trunk {
  host: string;
  port: number;
  /** The system number calls come from (the user part of From). */
  callerId: string;
  /** The trunk's domain in From/To and request URIs (its host when absent). */
  domain?: string;
  /** Digest credentials, when the trunk challenges. */
  username?: string;
  password?: string;
  /** The address our SIP and RTP sockets bind to and announce (127.0.0.1 for loopback trunks). */
  localIp: string;
  /** SIP over 'udp' (the default) or 'tcp'. */
  transport?: SipTransportKind;
}

export interface CallRequest {
  /** The number dialled (the user part of the request URI). */
  to: string;
  /** The speech as 8 kHz 16-bit linear PCM (encoded in the answer's law when the call is answered). */
  audio(): Promise<Buffer>;
  /** Times the audio plays (a second of silence between). */
  repeat: number;
  /** How long it may ring before the call is cancelled. */
  ringTimeoutMs: number;
  /** The most of the message that is played (what was paid for), in ms; all of it when absent. */
  maxPlayMs?: number;
  /**
   * Called at the first provisional response beyond 100 Trying (180 Ringing, 183 Session Progress, ...): the
   * trunk carried the call towards the callee, so whatever follows is the callee's side's answer.
   */
  onProgress?: () => void;
}

/**
 * How a call ended: answered and played in full, answered and hung up before the end, answered with no codec
 * in common, busy, no answer, rejected by the callee's side (4xx), refused by the trunk (3xx, 5xx, 6xx), or
 * failed before the trunk answered at all (never placed).
 */
export type CallResult = 'answered' | 'hung_up' | 'no_codec' | 'busy' | 'no_answer' | 'rejected' | 'refused' | 'failed';

export interface CallOutcome {
  result: CallResult;
  /** The final response to the INVITE, when there was one. */
  sipStatus?: number;
  reason: string;
  /** For an answered call: how the audio went, the law, RTP packets heard back, ms from the 200 OK to the first packet. */
  media?: StreamStats & { law: G711Law; received: number; firstPacketMs?: number };
  callId: string;
}

/** What a final non-2xx status means for the message. */
export function outcomeOf(status: number): CallResult {
  if (status === 486 || status === 600) return 'busy';
  if (status === 408 || status === 480 || status === 487) return 'no_answer';
  if (status >= 400 && status < 500) return 'rejected';
  return 'refused';
}

/** Places one call and resolves with its outcome; never rejects. */
export async function placeCall(trunk: Trunk, request: CallRequest, timers = RFC_TIMERS): Promise<CallOutcome> {
  let transport: SipTransport;
  try {
    transport = await openTransport(trunk.transport ?? 'udp', trunk.host, trunk.port, trunk.localIp);
  } catch (err) {
    return { result: 'failed', reason: `cannot reach the trunk: ${(err as Error).message}`, callId: '' };
  }
  let media: MediaSession;
  try {
    media = await openMedia(trunk.localIp);
  } catch (err) {
    await transport.close();
    return { result: 'failed', reason: (err as Error).message, callId: '' };
  }
  const call = new Call(trunk, request, transport, media, timers);
  try {
    return await call.run();
  } finally {
    await call.close();
  }
}

/** The INVITE's end: its final response, the ring timeout's CANCEL, or nothing at all (timer B). */
type Ringing = { final: SipMessage } | { cancelled: true; final?: SipMessage } | { silent: true };

class Call {
  private readonly callId = `${sipToken(12)}@yona`;
  private readonly fromTag = sipToken();
  private readonly domain: string;
  private readonly transactions: ClientTransactions;
  private cseq = 1;
  /** What the 2xx gave: the To with its tag, where in-dialog requests go, and the route set. */
  private dialog: { to: string; target: string; routes: string[] } | undefined;
  private ack2xx: string | undefined;
  private readonly byeFromPeer = new AbortController();

  constructor(
    private readonly trunk: Trunk,
    private readonly request: CallRequest,
    private readonly sip: SipTransport,
    private readonly media: MediaSession,
    timers: SipTimers,
  ) {
    this.domain = trunk.domain ?? trunk.host;
    this.transactions = new ClientTransactions(sip, timers);
  }

  /** Ends the transactions, then closes the SIP transport once the last message has left, and the RTP socket. */
  async close(): Promise<number> {
    this.transactions.close();
    await this.sip.close();
    return this.media.close();
  }

  private get requestUri(): string {
    return `sip:${this.request.to}@${this.domain}:${this.trunk.port}`;
  }

  private get calleeTo(): string {
    return `<sip:${this.request.to}@${this.domain}>`;
  }

  private via(branch: string): string {
    return `SIP/2.0/${this.sip.kind.toUpperCase()} ${this.trunk.localIp}:${this.sip.localPort()};branch=${branch};rport`;
  }

  private common(branch: string, method: string, cseq: number, to: string): Array<[string, string]> {
    return [
      ['Via', this.via(branch)],
      ['Max-Forwards', '70'],
      ['From', `<sip:${this.trunk.callerId}@${this.domain}>;tag=${this.fromTag}`],
      ['To', to],
      ['Call-ID', this.callId],
      ['CSeq', `${cseq} ${method}`],
      ['User-Agent', 'Yona'],
    ];
  }

  private invite(sdp: string, authorization?: [string, string]): OutgoingRequest {
    const branch = newBranch();
    const headers = this.common(branch, 'INVITE', this.cseq, this.calleeTo);
    const transport = this.sip.kind === 'tcp' ? ';transport=tcp' : '';
    headers.push(
      ['Contact', `<sip:${this.trunk.callerId}@${this.trunk.localIp}:${this.sip.localPort()}${transport}>`],
      ['Content-Type', 'application/sdp'],
    );
    if (authorization) headers.push(authorization);
    return { method: 'INVITE', branch, seq: this.cseq, text: formatRequest('INVITE', this.requestUri, headers, sdp) };
  }

  // An in-dialog request (BYE): to the remote target, through the route set, a transaction of its own.
  private inDialog(method: string): OutgoingRequest {
    const dialog = this.dialog!;
    const branch = newBranch();
    const headers = this.common(branch, method, ++this.cseq, dialog.to);
    for (const route of dialog.routes) headers.push(['Route', route]);
    return { method, branch, seq: this.cseq, text: formatRequest(method, dialog.target, headers) };
  }

  // Requests the trunk sends inside the call; responses go to their transactions.
  private onMessage(raw: Buffer): void {
    const message = parseSip(raw);
    if (!message) return;
    if (message.method === undefined) {
      this.transactions.receive(message);
      return;
    }
    const problem = requestProblem(message);
    if (problem) {
      if (message.method !== 'ACK' && header(message, 'via')) this.sip.send(formatResponse(message, 400, problem));
      return;
    }
    if (message.method === 'ACK') return;
    if (header(message, 'call-id') !== this.callId) {
      this.sip.send(formatResponse(message, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    if (message.method === 'BYE') {
      this.sip.send(formatResponse(message, 200, 'OK'));
      this.byeFromPeer.abort();
      this.media.stop();
      return;
    }
    if (message.method === 'OPTIONS' || message.method === 'INFO' || message.method === 'UPDATE') {
      this.sip.send(formatResponse(message, 200, 'OK'));
      return;
    }
    this.sip.send(formatResponse(message, 501, 'Not Implemented'));
  }

  async run(): Promise<CallOutcome> {
    this.sip.onMessage((raw) => this.onMessage(raw));
    const sdp = sdpOffer(this.trunk.localIp, this.media.port, randomInt(1, 2 ** 31));
    const outcome = (result: CallResult, reason: string, sipStatus?: number): CallOutcome => ({
      result,
      reason,
      sipStatus,
      callId: this.callId,
    });
    const answered = new Set<string>();
    let authorization: [string, string] | undefined;
    for (;;) {
      const ringing = await this.ring(this.invite(sdp, authorization));
      if ('silent' in ringing) return outcome('failed', 'no response from the trunk');
      if ('cancelled' in ringing) {
        const status = ringing.final?.status;
        const seconds = Math.round(this.request.ringTimeoutMs / 1000);
        if (status !== undefined && status >= 300 && status !== 487)
          return outcome(outcomeOf(status), `${status} ${ringing.final!.reason ?? ''}`.trim(), status);
        return outcome(
          'no_answer',
          status === 487 ? `no answer within ${seconds} s` : `no answer within ${seconds} s (the CANCEL got no 487)`,
          487,
        );
      }
      const final = ringing.final;
      const status = final.status!;
      if (status < 300) return this.answered(final, outcome);
      if (status === 401 || status === 407) {
        const challenge = header(final, status === 401 ? 'www-authenticate' : 'proxy-authenticate') ?? '';
        const { realm = '', nonce = '' } = parseChallenge(challenge);
        // Each challenge is answered once: the same one again means the credentials were refused.
        if (this.trunk.username !== undefined && !answered.has(`${realm}\u0000${nonce}`) && answered.size < 3) {
          answered.add(`${realm}\u0000${nonce}`);
          try {
            const value = digestAuthorization({
              challenge,
              method: 'INVITE',
              uri: this.requestUri,
              username: this.trunk.username,
              password: this.trunk.password ?? '',
            });
            authorization = [status === 401 ? 'Authorization' : 'Proxy-Authorization', value];
            this.cseq++;
            continue;
          } catch (err) {
            return outcome('rejected', `${status}: ${(err as Error).message}`, status);
          }
        }
      }
      const where =
        status < 400 ? `: redirected to ${uriOf(header(final, 'contact')) ?? 'elsewhere'} (not followed)` : '';
      return outcome(outcomeOf(status), `${status} ${final.reason ?? ''}`.trim() + where, status);
    }
  }

  // Runs the INVITE's client transaction until its final response; at the ring timeout it CANCELs (once a
  // provisional response came, as 9.1 asks) and waits up to 64 x T1 for the 487.
  private ring(invite: OutgoingRequest): Promise<Ringing> {
    return new Promise((resolve) => {
      let provisional = false;
      let cancelWanted = false;
      let cancelled = false;
      let settled = false;
      const timers: NodeJS.Timeout[] = [];
      const settle = (r: Ringing) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        resolve(r);
      };
      const cancel = () => {
        if (cancelled) return;
        cancelled = true;
        const headers = this.common(invite.branch, 'CANCEL', invite.seq, this.calleeTo);
        const text = formatRequest('CANCEL', this.requestUri, headers);
        this.transactions.start({ method: 'CANCEL', branch: invite.branch, seq: invite.seq, text }, noUser);
        timers.push(setTimeout(() => settle({ cancelled: true }), 64 * this.transactions.timers.T1));
      };
      const transaction = this.transactions.start(
        invite,
        {
          response: (m) => {
            const status = m.status!;
            if (status < 200) {
              provisional = true;
              if (status > 100) this.request.onProgress?.();
              if (cancelWanted) cancel();
              return;
            }
            if (status < 300) {
              this.acknowledge(m);
              // Answered after our CANCEL: the call is not wanted any more.
              if (cancelled && !settled) {
                void this.bye();
                settle({ cancelled: true, final: m });
                return;
              }
            }
            if (cancelled) settle({ cancelled: true, final: m });
            else settle({ final: m });
          },
          timeout: () => settle(cancelled ? { cancelled: true } : { silent: true }),
        },
        (response) =>
          formatRequest(
            'ACK',
            this.requestUri,
            this.common(invite.branch, 'ACK', invite.seq, header(response, 'to') ?? this.calleeTo),
          ),
      );
      timers.push(
        setTimeout(() => {
          if (transaction.final) return;
          cancelWanted = true;
          if (provisional) cancel();
        }, this.request.ringTimeoutMs),
      );
    });
  }

  // The ACK of a 2xx: built once on the first 2xx, with a branch of its own, and sent again, the same, for each
  // retransmission of the 2xx (13.2.2.4).
  private acknowledge(ok: SipMessage): void {
    if (!this.ack2xx) {
      const target = uriOf(header(ok, 'contact')) ?? this.requestUri;
      const routes = (ok.headers.get('record-route') ?? []).flatMap((v) => v.split(/,(?=\s*<)/)).map((v) => v.trim());
      this.dialog = { to: header(ok, 'to') ?? this.calleeTo, target, routes: routes.reverse() };
      const headers = this.common(newBranch(), 'ACK', this.cseq, this.dialog.to);
      for (const route of this.dialog.routes) headers.push(['Route', route]);
      this.ack2xx = formatRequest('ACK', target, headers);
    }
    this.sip.send(this.ack2xx);
  }

  // BYE in a non-INVITE transaction; resolves with its final response (undefined on timer F).
  private bye(): Promise<SipMessage | undefined> {
    return new Promise((resolve) => {
      this.transactions.start(this.inDialog('BYE'), {
        response: (m) => {
          if (m.status! >= 200) resolve(m);
        },
        timeout: () => resolve(undefined),
      });
    });
  }

  private async answered(
    ok: SipMessage,
    outcome: (r: CallResult, reason: string, s?: number) => CallOutcome,
  ): Promise<CallOutcome> {
    const okAt = performance.timeOrigin + performance.now();
    const answer = parseSdp(ok.body);
    const law: G711Law | undefined =
      answer?.payloadTypes.find((pt) => pt === PAYLOAD_TYPE.pcma || pt === PAYLOAD_TYPE.pcmu) === PAYLOAD_TYPE.pcmu
        ? 'pcmu'
        : answer?.payloadTypes.includes(PAYLOAD_TYPE.pcma)
          ? 'pcma'
          : undefined;
    if (!answer || !law) {
      await this.bye();
      return outcome('no_codec', 'answered without a usable SDP answer (no PCMA or PCMU)', 200);
    }
    let stats: StreamStats;
    try {
      const { payload, messageFrames } = playback(
        encodeG711(await this.request.audio(), law),
        law,
        this.request.repeat,
        {
          maxMs: this.request.maxPlayMs,
        },
      );
      stats = await this.media.play(answer.ip, answer.port, PAYLOAD_TYPE[law], payload, messageFrames);
    } catch (err) {
      await this.bye();
      return outcome('failed', `answered, but the audio could not be played: ${(err as Error).message}`, 200);
    }
    const firstPacketMs = stats.firstPacketAt === undefined ? undefined : Math.max(0, stats.firstPacketAt - okAt);
    const media = { ...stats, law, received: await this.media.close(), firstPacketMs };
    if (this.byeFromPeer.signal.aborted)
      return { ...outcome(stats.complete ? 'answered' : 'hung_up', '200 OK; the callee hung up', 200), media };
    const byeAnswer = await this.bye();
    return { ...outcome('answered', byeAnswer ? '200 OK' : '200 OK; the BYE got no answer', 200), media };
  }
}

const noUser = { response() {}, timeout() {} };

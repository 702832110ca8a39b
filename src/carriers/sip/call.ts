// One outbound call over SIP (UDP or TCP) to a trunk: INVITE with an SDP offer of PCMA and PCMU (over UDP
// retransmitted on RFC 3261's timer A until a response), digest authentication on 401/407, provisional responses, a ring timeout
// that CANCELs, ACK for every final response, the message played over RTP in the law the answer chose, then BYE.
// The outcome says what a delivery report needs: answered (with the audio's duration), busy, no answer,
// rejected or failed, with the SIP status that decided it.
import { createSocket, type Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { digestAuthorization } from './digest.ts';
import { openTransport, type SipTransport, type SipTransportKind } from './transport.ts';
import {
  formatRequest,
  formatResponse,
  header,
  newBranch,
  parseSdp,
  parseSip,
  sdpOffer,
  sipToken,
  uriOf,
  type SipMessage,
} from './message.ts';
import { PAYLOAD_TYPE, playbackFrames, streamRtp, type StreamStats } from './rtp.ts';
import type { G711Law } from './speech.ts';

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
  /** The audio in the law the answer chose (8 kHz G.711). */
  audio(law: G711Law): Promise<Buffer>;
  /** Times the audio plays (a second of silence between). */
  repeat: number;
  /** How long it may ring before the call is cancelled. */
  ringTimeoutMs: number;
}

export type CallResult = 'answered' | 'busy' | 'no_answer' | 'rejected' | 'failed';

export interface CallOutcome {
  result: CallResult;
  /** The final response to the INVITE, when there was one. */
  sipStatus?: number;
  reason: string;
  /** For an answered call: how long audio was sent, packets, the law, the pacing lateness, and RTP packets heard back. */
  media?: StreamStats & { law: G711Law; received: number };
  callId: string;
}

const T1 = 500;
const TIMER_B = 32 * T1;
/** How long after the ring timeout a trunk that never answered at all is waited for. */
const SILENT_TRUNK_GRACE_MS = 2000;

/** What a final non-2xx status means for the message. */
export function outcomeOf(status: number): CallResult {
  if (status === 486 || status === 600) return 'busy';
  if (status === 408 || status === 480 || status === 487) return 'no_answer';
  if (status >= 300 && status < 400) return 'failed';
  if (status >= 500 && status < 600) return 'failed';
  return 'rejected';
}

/** Places one call and resolves with its outcome; never rejects. */
export async function placeCall(trunk: Trunk, request: CallRequest): Promise<CallOutcome> {
  let transport: SipTransport;
  try {
    transport = await openTransport(trunk.transport ?? 'udp', trunk.host, trunk.port, trunk.localIp);
  } catch (err) {
    return { result: 'failed', reason: `cannot reach the trunk: ${(err as Error).message}`, callId: '' };
  }
  const call = new Call(trunk, request, transport);
  try {
    return await call.run();
  } finally {
    await call.close();
  }
}

class Call {
  private readonly rtp: Socket = createSocket('udp4');
  private readonly callId = `${sipToken(12)}@yona`;
  private readonly fromTag = sipToken();
  private readonly domain: string;
  private cseq = 1;
  private branch = newBranch();
  private toHeader: string | undefined;
  private remoteTarget: string | undefined;
  private authTried = false;
  private responses: Array<(m: SipMessage) => void> = [];
  private byeFromPeer = new AbortController();
  private heard = 0;

  constructor(
    private readonly trunk: Trunk,
    private readonly request: CallRequest,
    private readonly sip: SipTransport,
  ) {
    this.domain = trunk.domain ?? trunk.host;
  }

  /** Closes the SIP transport once the last message (an ACK, a BYE) has left, and the RTP socket. */
  async close(): Promise<void> {
    await this.sip.close();
    this.rtp.close();
  }

  private get requestUri(): string {
    return `sip:${this.request.to}@${this.domain}:${this.trunk.port}`;
  }

  private send(text: string): void {
    this.sip.send(text);
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

  private invite(sdp: string, authorization?: [string, string]): string {
    const headers = this.common(this.branch, 'INVITE', this.cseq, `<sip:${this.request.to}@${this.domain}>`);
    const transport = this.sip.kind === 'tcp' ? ';transport=tcp' : '';
    headers.push(
      ['Contact', `<sip:${this.trunk.callerId}@${this.trunk.localIp}:${this.sip.localPort()}${transport}>`],
      ['Content-Type', 'application/sdp'],
    );
    if (authorization) headers.push(authorization);
    return formatRequest('INVITE', this.requestUri, headers, sdp);
  }

  // ACK of a non-2xx final response: same branch and CSeq number as the INVITE, To as the response gave it.
  private ackError(response: SipMessage): void {
    const headers = this.common(this.branch, 'ACK', this.cseq, header(response, 'to') ?? '');
    this.send(formatRequest('ACK', this.requestUri, headers));
  }

  // ACK of a 2xx: a transaction of its own, to the remote target.
  private ack2xx(): void {
    this.send(
      formatRequest(
        'ACK',
        this.remoteTarget ?? this.requestUri,
        this.common(newBranch(), 'ACK', this.cseq, this.toHeader!),
      ),
    );
  }

  private onMessage(raw: Buffer): void {
    const message = parseSip(raw);
    if (!message) return;
    if (message.method === 'BYE') {
      this.send(formatResponse(message, 200, 'OK'));
      this.byeFromPeer.abort();
      return;
    }
    if (message.method !== undefined) {
      if (message.method !== 'ACK') this.send(formatResponse(message, 501, 'Not Implemented'));
      return;
    }
    if (header(message, 'call-id') !== this.callId) return;
    for (const handler of [...this.responses]) handler(message);
  }

  /**
   * Waits for a response to `method` that `onResponse` accepts; sends `text` first and retransmits it on timer A
   * until any response (with no text, it only waits).
   */
  private transaction(
    method: string,
    text: string | undefined,
    onResponse: (m: SipMessage) => boolean,
    timeoutMs = TIMER_B,
    extend?: () => boolean,
  ): Promise<SipMessage | undefined> {
    return new Promise((resolve) => {
      let interval = T1;
      let answered = false;
      let retransmit: NodeJS.Timeout | undefined;
      const schedule = () => {
        if (text === undefined || this.sip.reliable) return;
        retransmit = setTimeout(() => {
          if (answered) return;
          this.send(text);
          interval = Math.min(interval * 2, 4000);
          schedule();
        }, interval);
      };
      const done = (m: SipMessage | undefined) => {
        clearTimeout(retransmit);
        clearTimeout(giveUp);
        this.responses = this.responses.filter((h) => h !== handler);
        resolve(m);
      };
      const handler = (m: SipMessage) => {
        if (!header(m, 'cseq')?.endsWith(method)) return;
        answered = true;
        clearTimeout(retransmit);
        if (onResponse(m)) done(m);
      };
      // `extend`: once the peer has answered at all, wait up to timer B instead of `timeoutMs`.
      let giveUp = setTimeout(function expire() {
        if (extend?.() && timeoutMs < TIMER_B) {
          giveUp = setTimeout(() => done(undefined), TIMER_B - timeoutMs);
          return;
        }
        done(undefined);
      }, timeoutMs);
      this.responses.push(handler);
      if (text !== undefined) this.send(text);
      schedule();
    });
  }

  async run(): Promise<CallOutcome> {
    await new Promise<void>((r) => this.rtp.bind(0, this.trunk.localIp, () => r()));
    this.sip.onMessage((raw) => this.onMessage(raw));
    this.rtp.on('message', () => void this.heard++); // the callee's audio is counted, not kept
    const sdp = sdpOffer(this.trunk.localIp, this.rtp.address().port, randomInt(1, 2 ** 31));
    const outcome = (result: CallResult, reason: string, sipStatus?: number): CallOutcome => ({
      result,
      reason,
      sipStatus,
      callId: this.callId,
    });

    let authorization: [string, string] | undefined;
    for (;;) {
      const final = await this.ring(sdp, authorization);
      if (!final) return outcome('failed', 'no response from the trunk');
      if (final === 'timeout')
        return outcome('no_answer', `no answer within ${Math.round(this.request.ringTimeoutMs / 1000)} s`, 487);
      const status = final.status!;
      if ((status === 401 || status === 407) && !this.authTried && this.trunk.username !== undefined) {
        this.ackError(final);
        this.authTried = true;
        const challenge = header(final, status === 401 ? 'www-authenticate' : 'proxy-authenticate') ?? '';
        const value = digestAuthorization({
          challenge,
          method: 'INVITE',
          uri: this.requestUri,
          username: this.trunk.username,
          password: this.trunk.password ?? '',
        });
        authorization = [status === 401 ? 'Authorization' : 'Proxy-Authorization', value];
        this.cseq++;
        this.branch = newBranch();
        continue;
      }
      if (status >= 300) {
        this.ackError(final);
        const where =
          status < 400 ? `: redirected to ${uriOf(header(final, 'contact')) ?? 'elsewhere'} (not followed)` : '';
        return outcome(outcomeOf(status), `${status} ${final.reason ?? ''}`.trim() + where, status);
      }
      return this.answered(final, outcome);
    }
  }

  // Sends the INVITE and waits for its final response; 'timeout' when the ring timeout CANCELled it.
  private async ring(sdp: string, authorization?: [string, string]): Promise<SipMessage | 'timeout' | undefined> {
    let provisional = false;
    let cancelled = false;
    const text = this.invite(sdp, authorization);
    const ringTimer = setTimeout(() => {
      cancelled = true;
      if (provisional) {
        const cancel = formatRequest(
          'CANCEL',
          this.requestUri,
          this.common(this.branch, 'CANCEL', this.cseq, `<sip:${this.request.to}@${this.domain}>`),
        );
        void this.transaction('CANCEL', cancel, () => true, 4000);
      }
    }, this.request.ringTimeoutMs);
    const final = await this.transaction(
      'INVITE',
      text,
      (m) => {
        if (m.status! < 200) {
          provisional = true;
          if (cancelled) return true; // CANCEL only after a provisional: send it now
          return false;
        }
        return true;
      },
      this.request.ringTimeoutMs + SILENT_TRUNK_GRACE_MS,
      () => provisional,
    );
    clearTimeout(ringTimer);
    if (final && final.status! < 200) {
      // The ring timeout came before any provisional response; cancel now and wait for the 487.
      const cancel = formatRequest(
        'CANCEL',
        this.requestUri,
        this.common(this.branch, 'CANCEL', this.cseq, `<sip:${this.request.to}@${this.domain}>`),
      );
      void this.transaction('CANCEL', cancel, () => true, 4000);
      const after = await this.transaction('INVITE', undefined, (m) => m.status! >= 200, 4000);
      if (after && after.status! >= 300) this.ackError(after);
      return 'timeout';
    }
    if (cancelled && final && final.status === 487) {
      this.ackError(final);
      return 'timeout';
    }
    return final;
  }

  private async answered(
    ok: SipMessage,
    outcome: (r: CallResult, reason: string, s?: number) => CallOutcome,
  ): Promise<CallOutcome> {
    this.toHeader = header(ok, 'to');
    this.remoteTarget = uriOf(header(ok, 'contact'));
    this.ack2xx();
    // A retransmitted 200 (our ACK was lost) is acknowledged again.
    const reAck = (m: SipMessage) => {
      if (m.status === 200 && header(m, 'cseq')?.endsWith('INVITE')) this.ack2xx();
    };
    this.responses.push(reAck);
    const answer = parseSdp(ok.body);
    const law: G711Law | undefined =
      answer?.payloadTypes.find((pt) => pt === PAYLOAD_TYPE.pcma || pt === PAYLOAD_TYPE.pcmu) === PAYLOAD_TYPE.pcmu
        ? 'pcmu'
        : answer?.payloadTypes.includes(PAYLOAD_TYPE.pcma)
          ? 'pcma'
          : undefined;
    let media: CallOutcome['media'];
    let reason = '200 OK';
    if (!answer || !law) {
      reason = 'answered without a usable SDP answer (no PCMA or PCMU)';
    } else {
      const audio = await this.request.audio(law);
      const frames = playbackFrames(audio, law, this.request.repeat);
      const stats = await streamRtp(this.rtp, answer.ip, answer.port, frames, law, this.byeFromPeer.signal);
      media = { ...stats, law, received: 0 };
    }
    if (!this.byeFromPeer.signal.aborted) {
      this.cseq++;
      const bye = formatRequest(
        'BYE',
        this.remoteTarget ?? this.requestUri,
        this.common(newBranch(), 'BYE', this.cseq, this.toHeader!),
      );
      await this.transaction('BYE', bye, (m) => m.status! >= 200, 4000);
    } else {
      reason = `${reason}; the callee hung up`;
    }
    this.responses = this.responses.filter((h) => h !== reAck);
    if (media) media.received = this.heard;
    return { ...outcome(media ? 'answered' : 'failed', reason, 200), media };
  }
}

// The bundled simulator's voice side: a SIP user agent server on loopback (UDP) that answers calls the way its
// SMSC answers texts, by the dialled number's last four digits, and records the RTP each answered call received
// (packets and duration), for `yona sim calls` and the tests.
import { createSocket, type Socket } from 'node:dgram';
import {
  formatResponse,
  header,
  parseSdp,
  parseSip,
  requestProblem,
  sipToken,
  tagOf,
  uriOf,
  type SipMessage,
} from '../sip/message.ts';
import { PACKET_MS, PAYLOAD_TYPE } from '../sip/rtp.ts';

/** What the simulated callee does. */
export type CallBehaviour = 'answer' | 'busy' | 'decline' | 'no-answer' | 'not-found';

/** Dialled numbers ending in these digits get these behaviours; every other number answers. */
export const CALL_RULES: ReadonlyArray<{ suffix: string; behaviour: CallBehaviour }> = [
  { suffix: '0486', behaviour: 'busy' },
  { suffix: '0603', behaviour: 'decline' },
  { suffix: '0480', behaviour: 'no-answer' },
  { suffix: '0404', behaviour: 'not-found' },
];

/** The behaviour for a dialled number (its user part, in any form). */
export function callBehaviour(number: string): CallBehaviour {
  const digits = number.replace(/\D/g, '');
  return CALL_RULES.find((r) => digits.endsWith(r.suffix))?.behaviour ?? 'answer';
}

/** One call the simulator took. */
export interface ReceivedCall {
  callId: string;
  from: string;
  to: string;
  behaviour: CallBehaviour;
  law?: 'pcma' | 'pcmu';
  /** RTP packets received while the call was up, and what they add up to (20 ms each). */
  packets: number;
  durationMs: number;
  /** Milliseconds between consecutive RTP packets as they arrived (the pacing the callee heard). */
  gaps: number[];
  startedAt: number;
  endedAt?: number;
}

interface Dialog {
  call: ReceivedCall;
  invite: SipMessage;
  toTag: string;
  media?: Socket;
  final?: string;
}

/** A UAS on 127.0.0.1; `start()` resolves with its SIP port. */
export class CallSimulator {
  private readonly socket: Socket = createSocket('udp4');
  private readonly dialogs = new Map<string, Dialog>();
  private readonly log: ReceivedCall[] = [];
  /** Calls that ended: a retransmitted INVITE of one, arriving late, is not a new call. */
  private readonly ended = new Set<string>();

  async start(port = 0): Promise<number> {
    await new Promise<void>((resolve) => this.socket.bind(port, '127.0.0.1', () => resolve()));
    this.socket.on('message', (raw, from) => void this.handle(raw, from.address, from.port));
    return this.socket.address().port;
  }

  /** Calls received, oldest first, optionally only those to one number. */
  calls(filter: { to?: string } = {}): ReceivedCall[] {
    return this.log.filter((c) => !filter.to || c.to.replace(/\D/g, '').endsWith(filter.to.replace(/\D/g, '')));
  }

  async stop(): Promise<void> {
    for (const d of this.dialogs.values()) d.media?.close();
    this.dialogs.clear();
    await new Promise<void>((resolve) => this.socket.close(() => resolve()));
  }

  private reply(to: { address: string; port: number }, text: string): void {
    this.socket.send(text, to.port, to.address);
  }

  private async handle(raw: Buffer, address: string, port: number): Promise<void> {
    const m = parseSip(raw);
    if (!m || m.method === undefined) return;
    const peer = { address, port };
    const problem = requestProblem(m);
    if (problem) {
      if (m.method !== 'ACK' && header(m, 'via')) this.reply(peer, formatResponse(m, 400, problem));
      return;
    }
    if (m.method === 'OPTIONS') {
      this.reply(peer, formatResponse(m, 200, 'OK', [['Allow', 'INVITE, ACK, CANCEL, BYE, OPTIONS']]));
      return;
    }
    const callId = header(m, 'call-id') ?? '';
    const dialog = this.dialogs.get(callId);
    if (m.method === 'INVITE') {
      if (this.ended.has(callId)) return;
      if (dialog) {
        if (dialog.final) this.reply(peer, dialog.final); // a retransmitted INVITE gets the final answer again
        return;
      }
      await this.invite(m, peer);
    } else if (m.method === 'CANCEL' && dialog) {
      this.reply(peer, formatResponse(m, 200, 'OK', [], '', dialog.toTag));
      dialog.final = formatResponse(dialog.invite, 487, 'Request Terminated', [], '', dialog.toTag);
      this.reply(peer, dialog.final);
      this.finish(dialog);
    } else if (m.method === 'BYE' && dialog) {
      this.reply(peer, formatResponse(m, 200, 'OK'));
      this.finish(dialog);
    } else if (m.method === 'ACK') {
      if (dialog?.final && !dialog.final.startsWith('SIP/2.0 200')) this.dialogs.delete(callId);
    } else {
      this.reply(peer, formatResponse(m, 481, 'Call/Transaction Does Not Exist'));
    }
  }

  private async invite(m: SipMessage, peer: { address: string; port: number }): Promise<void> {
    const to =
      uriOf(header(m, 'to'))
        ?.replace(/^sips?:/, '')
        .split('@')[0] ?? '';
    const behaviour = callBehaviour(to);
    const call: ReceivedCall = {
      callId: header(m, 'call-id') ?? '',
      from: uriOf(header(m, 'from')) ?? '',
      to,
      behaviour,
      packets: 0,
      durationMs: 0,
      gaps: [],
      startedAt: Date.now(),
    };
    this.log.push(call);
    const dialog: Dialog = { call, invite: m, toTag: tagOf(header(m, 'to')) ?? sipToken() };
    this.dialogs.set(call.callId, dialog);
    this.reply(peer, formatResponse(m, 100, 'Trying'));
    const final = (status: number, reason: string) => {
      dialog.final = formatResponse(m, status, reason, [], '', dialog.toTag);
      this.reply(peer, dialog.final);
      call.endedAt = Date.now();
      this.remember(call.callId);
    };
    if (behaviour === 'busy') return final(486, 'Busy Here');
    if (behaviour === 'decline') return final(603, 'Decline');
    if (behaviour === 'not-found') return final(404, 'Not Found');
    this.reply(peer, formatResponse(m, 180, 'Ringing', [], '', dialog.toTag));
    if (behaviour === 'no-answer') return; // rings until the caller cancels
    const offer = parseSdp(m.body);
    const law =
      offer?.payloadTypes.find((pt) => pt === PAYLOAD_TYPE.pcma || pt === PAYLOAD_TYPE.pcmu) === PAYLOAD_TYPE.pcmu
        ? 'pcmu'
        : 'pcma';
    const media = createSocket('udp4');
    await new Promise<void>((resolve) => media.bind(0, '127.0.0.1', () => resolve()));
    let last: number | undefined;
    media.on('message', () => {
      const now = performance.now();
      if (last !== undefined) call.gaps.push(now - last);
      last = now;
      call.packets++;
      call.durationMs = call.packets * PACKET_MS;
    });
    dialog.media = media;
    call.law = law;
    const pt = PAYLOAD_TYPE[law];
    const sdp = [
      'v=0',
      'o=sim 1 1 IN IP4 127.0.0.1',
      's=yona-sim',
      'c=IN IP4 127.0.0.1',
      't=0 0',
      `m=audio ${media.address().port} RTP/AVP ${pt}`,
      `a=rtpmap:${pt} ${law === 'pcma' ? 'PCMA' : 'PCMU'}/8000`,
      'a=recvonly',
      '',
    ].join('\r\n');
    const contact: [string, string] = ['Contact', `<sip:${to}@127.0.0.1:${this.socket.address().port}>`];
    dialog.final = formatResponse(m, 200, 'OK', [contact, ['Content-Type', 'application/sdp']], sdp, dialog.toTag);
    this.reply(peer, dialog.final);
  }

  private remember(callId: string): void {
    if (this.ended.size >= 100_000) this.ended.clear();
    this.ended.add(callId);
  }

  private finish(dialog: Dialog): void {
    dialog.call.endedAt = Date.now();
    this.remember(dialog.call.callId);
    dialog.media?.close();
    dialog.media = undefined;
    this.dialogs.delete(dialog.call.callId);
  }
}

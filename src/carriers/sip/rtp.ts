// RTP (RFC 3550) for a call's audio: G.711 in 20 ms packets of 160 samples, sent on a schedule kept against
// the clock (each packet at start + n x 20 ms, so timer lateness never accumulates), the message played
// `repeat` times with a second of silence between. Records how late each packet left (pacing jitter).
import type { Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { PAUSE_BETWEEN_PLAYS_MS } from '../../domain/voice.ts';
import type { G711Law } from './speech.ts';

/** Samples (and bytes) in one 20 ms G.711 packet. */
export const SAMPLES_PER_PACKET = 160;
export const PACKET_MS = 20;
/** RTP payload types of the two G.711 laws. */
export const PAYLOAD_TYPE: Record<G711Law, number> = { pcmu: 0, pcma: 8 };
/** The byte of silence in each law. */
const SILENCE: Record<G711Law, number> = { pcmu: 0xff, pcma: 0xd5 };

/** The RTP header fields of one packet. */
export interface RtpHeader {
  payloadType: number;
  sequence: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
}

/** One RTP packet: a 12-byte header (version 2, no padding, extension or CSRC) and the payload. */
export function rtpPacket(h: RtpHeader, payload: Buffer): Buffer {
  const packet = Buffer.allocUnsafe(12 + payload.length);
  packet[0] = 0x80;
  packet[1] = (h.marker ? 0x80 : 0) | (h.payloadType & 0x7f);
  packet.writeUInt16BE(h.sequence & 0xffff, 2);
  packet.writeUInt32BE(h.timestamp >>> 0, 4);
  packet.writeUInt32BE(h.ssrc >>> 0, 8);
  payload.copy(packet, 12);
  return packet;
}

/** Reads an RTP packet's header; undefined for anything that is not RTP version 2. */
export function parseRtp(packet: Buffer): (RtpHeader & { payload: Buffer }) | undefined {
  if (packet.length < 12 || packet[0] >> 6 !== 2) return undefined;
  const csrcs = packet[0] & 0x0f;
  const start = 12 + csrcs * 4;
  if (packet.length < start) return undefined;
  return {
    marker: (packet[1] & 0x80) !== 0,
    payloadType: packet[1] & 0x7f,
    sequence: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: packet.readUInt32BE(8),
    payload: packet.subarray(start),
  };
}

/** The frames a call plays: the audio `repeat` times, `pauseMs` of silence between, cut into 20 ms frames. */
export function playbackFrames(
  audio: Buffer,
  law: G711Law,
  repeat: number,
  pauseMs = PAUSE_BETWEEN_PLAYS_MS,
): Buffer[] {
  const pause = Buffer.alloc(Math.round((pauseMs / 1000) * 8000), SILENCE[law]);
  const parts: Buffer[] = [];
  for (let i = 0; i < repeat; i++) parts.push(...(i > 0 ? [pause, audio] : [audio]));
  const whole = Buffer.concat(parts);
  const frames: Buffer[] = [];
  for (let i = 0; i < whole.length; i += SAMPLES_PER_PACKET) {
    const frame = whole.subarray(i, i + SAMPLES_PER_PACKET);
    frames.push(
      frame.length === SAMPLES_PER_PACKET
        ? frame
        : Buffer.concat([frame, Buffer.alloc(SAMPLES_PER_PACKET - frame.length, SILENCE[law])]),
    );
  }
  return frames;
}

/** How a stream went: packets sent, how long the sending took, and how late each left against its schedule. */
export interface StreamStats {
  packets: number;
  /** From the first packet to 20 ms after the last (the audio as the callee heard it). */
  durationMs: number;
  /** Lateness of each packet's send against start + n x 20 ms, in ms. */
  lateness: number[];
}

/** One stream the media clock paces. */
interface Stream {
  socket: Socket;
  host: string;
  port: number;
  frames: Buffer[];
  payloadType: number;
  ssrc: number;
  sequence: number;
  timestamp: number;
  start: number;
  n: number;
  lateness: number[];
  /** When the last packet left. */
  lastSent: number;
  abort?: AbortSignal;
  done(stats: StreamStats): void;
}

/** How often the media clock looks for due packets: well under a packet, so none leaves more than this late. */
const TICK_MS = 2;

/**
 * One clock for every stream of the process: each tick sends every packet that is due (start + n x 20 ms), so a
 * hundred calls cost one timer, not a hundred, and a stalled tick catches up instead of stretching a call.
 */
class MediaClock {
  private readonly streams = new Set<Stream>();
  private timer: NodeJS.Timeout | undefined;

  add(stream: Stream): void {
    this.streams.add(stream);
    this.tick();
  }

  private tick = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (const s of this.streams) {
      if (!s.abort?.aborted) {
        while (s.n < s.frames.length && s.start + s.n * PACKET_MS <= now + 0.5) {
          s.lateness.push(Math.max(0, now - (s.start + s.n * PACKET_MS)));
          s.socket.send(
            rtpPacket(
              {
                payloadType: s.payloadType,
                sequence: s.sequence,
                timestamp: s.timestamp,
                ssrc: s.ssrc,
                marker: s.n === 0,
              },
              s.frames[s.n],
            ),
            s.port,
            s.host,
          );
          s.lastSent = now;
          s.sequence = (s.sequence + 1) & 0xffff;
          s.timestamp = (s.timestamp + SAMPLES_PER_PACKET) >>> 0;
          s.n++;
        }
      }
      if (s.abort?.aborted || s.n >= s.frames.length) {
        this.streams.delete(s);
        s.done({ packets: s.n, durationMs: s.n === 0 ? 0 : s.lastSent - s.start + PACKET_MS, lateness: s.lateness });
      }
    }
    if (this.streams.size > 0 && !this.timer) this.timer = setTimeout(this.tick, TICK_MS);
  };
}

const clock = new MediaClock();

/** Sends frames to `host:port` from `socket`, one every 20 ms; resolves when all left, or stops early on `abort`. */
export function streamRtp(
  socket: Socket,
  host: string,
  port: number,
  frames: Buffer[],
  law: G711Law,
  abort?: AbortSignal,
): Promise<StreamStats> {
  return new Promise((done) =>
    clock.add({
      socket,
      host,
      port,
      frames,
      payloadType: PAYLOAD_TYPE[law],
      ssrc: randomInt(0, 2 ** 32),
      sequence: randomInt(0, 2 ** 16),
      timestamp: randomInt(0, 2 ** 32),
      start: performance.now(),
      n: 0,
      lateness: [],
      lastSent: 0,
      abort,
      done,
    }),
  );
}

// RTP (RFC 3550) for a call's audio: G.711 in 20 ms packets of 160 samples, the message played `repeat` times
// with a second of silence between and 200 ms of silence after, so the far end hears the last words before the
// BYE. The packets are paced on the media thread (media-thread.ts).
import { PAUSE_BETWEEN_PLAYS_MS } from '../../domain/voice.ts';
import type { G711Law } from '../../speech/g711.ts';

/** Samples (and bytes) in one 20 ms G.711 packet. */
export const SAMPLES_PER_PACKET = 160;
export const PACKET_MS = 20;
/** RTP payload types of the two G.711 laws. */
export const PAYLOAD_TYPE: Record<G711Law, number> = { pcmu: 0, pcma: 8 };
/** Silence sent after the message, before the BYE. */
export const TRAILING_SILENCE_MS = 200;
/** The byte of silence in each law. */
export const SILENCE: Record<G711Law, number> = { pcmu: 0xff, pcma: 0xd5 };

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

/** What a call plays: the audio `repeat` times with `pauseMs` of silence between, at most `maxMs` of it, then the
 * trailing silence; whole 20 ms frames, the last one padded with silence. */
export function playback(
  audio: Buffer,
  law: G711Law,
  repeat: number,
  options: { pauseMs?: number; maxMs?: number } = {},
): { payload: Buffer; messageFrames: number } {
  const pause = Buffer.alloc(Math.round(((options.pauseMs ?? PAUSE_BETWEEN_PLAYS_MS) / 1000) * 8000), SILENCE[law]);
  const parts: Buffer[] = [];
  for (let i = 0; i < repeat; i++) parts.push(...(i > 0 ? [pause, audio] : [audio]));
  let message = Buffer.concat(parts);
  if (options.maxMs !== undefined) message = message.subarray(0, Math.max(0, Math.floor(options.maxMs * 8)));
  const messageFrames = Math.ceil(message.length / SAMPLES_PER_PACKET);
  const trailing = (TRAILING_SILENCE_MS / PACKET_MS) * SAMPLES_PER_PACKET;
  const payload = Buffer.alloc(messageFrames * SAMPLES_PER_PACKET + trailing, SILENCE[law]);
  message.copy(payload);
  return { payload, messageFrames };
}

/** The frames of the message itself (no trailing silence), cut into 20 ms frames. */
export function playbackFrames(
  audio: Buffer,
  law: G711Law,
  repeat: number,
  pauseMs = PAUSE_BETWEEN_PLAYS_MS,
): Buffer[] {
  const { payload, messageFrames } = playback(audio, law, repeat, { pauseMs });
  return Array.from({ length: messageFrames }, (_, i) =>
    payload.subarray(i * SAMPLES_PER_PACKET, (i + 1) * SAMPLES_PER_PACKET),
  );
}

/** How a stream went, as the media thread saw it. */
export interface StreamStats {
  /** Packets sent, trailing silence included. */
  packets: number;
  /** Milliseconds of the message the callee got (its packets x 20 ms; the trailing silence not counted). */
  durationMs: number;
  /** Whether every packet of the message left (false: the callee hung up, or the stream was stopped). */
  complete: boolean;
  /** Lateness of each packet's send against its schedule, in ms. */
  lateness: number[];
  /** Packets that left more than a quarter packet late (their successors were rescheduled, not bunched). */
  lateTicks: number;
  /** When the first packet left (ms since the epoch, on the same clock as the main thread's performance). */
  firstPacketAt?: number;
  /**
   * Wall time the message's packets took to leave, from the first to the last plus its 20 ms (monotonic clock):
   * the pacing as sent, where `durationMs` counts packets.
   */
  sentOverMs: number;
}

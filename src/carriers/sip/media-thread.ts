// The media thread: the RTP of every call of the process, paced apart from the main event loop (the API, the
// dispatcher and the database never delay a packet). Each stream's packets are due every 20 ms from its start on
// the monotonic clock; a tick that comes late sends the one packet due and moves the stream's schedule, so the
// next packet still leaves at least 18 ms later: lateness shows as one longer gap, never as a burst a jitter
// buffer would drop. The main thread opens a session (an RTP socket here, its port for the SDP offer), hands it
// the encoded audio, and gets back how the stream went and how many packets the callee sent.
import { createSocket, type Socket } from 'node:dgram';
import { randomInt } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { PACKET_MS, rtpPacket, SAMPLES_PER_PACKET, type StreamStats } from './rtp.ts';
import type { MediaReply, MediaRequest } from './media.ts';

/** A packet that leaves later than this is a late tick. */
const LATE_MS = PACKET_MS / 4;
/** The least gap after a late packet. */
const MIN_GAP_MS = PACKET_MS - 2;
/**
 * How early a packet may leave: timers wake in whole milliseconds, so the streams due within the next one go out in
 * the same tick (fewer wake-ups with 100 calls, each one later less often).
 */
const EARLY_MS = 1;

interface Session {
  socket: Socket;
  received: number;
  stream?: Stream;
}

interface Stream {
  id: number;
  session: Session;
  host: string;
  port: number;
  payload: Buffer;
  frames: number;
  messageFrames: number;
  payloadType: number;
  ssrc: number;
  sequence: number;
  timestamp: number;
  due: number;
  n: number;
  lateness: number[];
  lateTicks: number;
  firstPacketAt?: number;
  /** The monotonic times the message's first and last packets left (its trailing silence not counted). */
  firstSentAt?: number;
  lastSentAt?: number;
}

const port = parentPort!;
const sessions = new Map<number, Session>();
const streams = new Set<Stream>();
let timer: NodeJS.Timeout | undefined;

const reply = (message: MediaReply) => port.postMessage(message);
const epochNow = () => performance.timeOrigin + performance.now();

function finish(stream: Stream): void {
  streams.delete(stream);
  stream.session.stream = undefined;
  const stats: StreamStats = {
    packets: stream.n,
    durationMs: Math.min(stream.n, stream.messageFrames) * PACKET_MS,
    complete: stream.n >= stream.messageFrames,
    lateness: stream.lateness,
    lateTicks: stream.lateTicks,
    firstPacketAt: stream.firstPacketAt,
    sentOverMs:
      stream.firstSentAt === undefined || stream.lastSentAt === undefined
        ? 0
        : stream.lastSentAt - stream.firstSentAt + PACKET_MS,
  };
  reply({ op: 'played', id: stream.id, stats });
}

function sendDue(stream: Stream, now: number): void {
  const late = now - stream.due;
  stream.lateness.push(Math.max(0, late));
  if (late > LATE_MS) stream.lateTicks++;
  const frame = stream.payload.subarray(stream.n * SAMPLES_PER_PACKET, (stream.n + 1) * SAMPLES_PER_PACKET);
  stream.session.socket.send(
    rtpPacket(
      {
        payloadType: stream.payloadType,
        sequence: stream.sequence,
        timestamp: stream.timestamp,
        ssrc: stream.ssrc,
        marker: stream.n === 0,
      },
      frame,
    ),
    stream.port,
    stream.host,
  );
  if (stream.n === 0) {
    stream.firstPacketAt = epochNow();
    stream.firstSentAt = now;
  }
  if (stream.n < stream.messageFrames) stream.lastSentAt = now;
  stream.sequence = (stream.sequence + 1) & 0xffff;
  stream.timestamp = (stream.timestamp + SAMPLES_PER_PACKET) >>> 0;
  stream.n++;
  stream.due = Math.max(stream.due + PACKET_MS, now + MIN_GAP_MS);
}

function tick(): void {
  timer = undefined;
  const now = performance.now();
  let next = Number.POSITIVE_INFINITY;
  for (const stream of streams) {
    if (stream.due <= now + EARLY_MS) sendDue(stream, now);
    if (stream.n >= stream.frames) finish(stream);
    else next = Math.min(next, stream.due);
  }
  schedule(next);
}

function schedule(at: number): void {
  if (timer || !Number.isFinite(at)) return;
  timer = setTimeout(tick, Math.max(0, Math.floor(at - performance.now())));
}

function handle(message: MediaRequest): void {
  switch (message.op) {
    case 'open': {
      const socket = createSocket('udp4');
      const session: Session = { socket, received: 0 };
      socket.on('message', () => void session.received++); // the callee's audio is counted, not kept
      socket.on('error', (err) => reply({ op: 'error', id: message.id, error: err.message }));
      socket.bind(0, message.localIp, () => {
        sessions.set(message.id, session);
        reply({ op: 'opened', id: message.id, port: socket.address().port });
      });
      return;
    }
    case 'play': {
      const session = sessions.get(message.id);
      if (!session) return reply({ op: 'error', id: message.id, error: 'no such media session' });
      const payload = Buffer.from(message.payload);
      const stream: Stream = {
        id: message.id,
        session,
        host: message.host,
        port: message.port,
        payload,
        frames: Math.floor(payload.length / SAMPLES_PER_PACKET),
        messageFrames: message.messageFrames,
        payloadType: message.payloadType,
        ssrc: randomInt(0, 2 ** 32),
        sequence: randomInt(0, 2 ** 16),
        timestamp: randomInt(0, 2 ** 32),
        due: performance.now(),
        n: 0,
        lateness: [],
        lateTicks: 0,
      };
      session.stream = stream;
      streams.add(stream);
      if (timer) clearTimeout(timer);
      timer = undefined;
      tick();
      return;
    }
    case 'stop': {
      const stream = sessions.get(message.id)?.stream;
      if (stream) finish(stream);
      return;
    }
    case 'close': {
      const session = sessions.get(message.id);
      sessions.delete(message.id);
      if (session?.stream) finish(session.stream);
      session?.socket.close();
      reply({ op: 'closed', id: message.id, received: session?.received ?? 0 });
      return;
    }
  }
}

port.on('message', handle);

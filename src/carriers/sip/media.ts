// The main thread's side of the media thread (media-thread.ts): one worker for the process, started with the
// first call. A call opens a media session (the RTP port for its SDP offer), plays the encoded audio, stops it
// when the callee hangs up, and closes it (learning how many packets the callee sent).
import { Worker } from 'node:worker_threads';
import type { StreamStats } from './rtp.ts';

export type MediaRequest =
  | { op: 'open'; id: number; localIp: string }
  | {
      op: 'play';
      id: number;
      host: string;
      port: number;
      payloadType: number;
      payload: ArrayBuffer;
      messageFrames: number;
    }
  | { op: 'stop'; id: number }
  | { op: 'close'; id: number };

export type MediaReply =
  | { op: 'opened'; id: number; port: number }
  | { op: 'played'; id: number; stats: StreamStats }
  | { op: 'closed'; id: number; received: number }
  | { op: 'error'; id: number; error: string };

/** What the media thread did for the process: packets that left late (their successors rescheduled). */
export const mediaStats = { lateTicks: 0, streams: 0 };

/** One call's RTP on the media thread. */
export interface MediaSession {
  /** The local RTP port (for the SDP offer). */
  readonly port: number;
  /** Plays `payload` (whole 160-byte frames) to `host:port`; resolves when it ended or was stopped. */
  play(host: string, port: number, payloadType: number, payload: Buffer, messageFrames: number): Promise<StreamStats>;
  /** Stops the stream now (the callee hung up). */
  stop(): void;
  /** Closes the RTP socket; resolves with the packets the callee sent. */
  close(): Promise<number>;
}

class MediaThread {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<string, (reply: MediaReply) => void>();

  private get thread(): Worker {
    if (!this.worker) {
      const worker = new Worker(new URL('./media-thread.mjs', import.meta.url), { execArgv: [] });
      worker.on('message', (reply: MediaReply) => {
        const key = `${reply.op === 'error' ? this.pendingOf(reply.id) : reply.op}:${reply.id}`;
        const resolve = this.waiting.get(key);
        this.waiting.delete(key);
        if (this.waiting.size === 0) worker.unref();
        resolve?.(reply);
      });
      worker.on('error', (err) => this.failAll(err.message));
      worker.on('exit', () => {
        this.worker = undefined;
        this.failAll('the media thread exited');
      });
      // Unreferenced (after the listeners, which would reference it again) but while a request waits for its reply.
      worker.unref();
      this.worker = worker;
    }
    return this.worker;
  }

  private pendingOf(id: number): string {
    for (const key of this.waiting.keys()) if (key.endsWith(`:${id}`)) return key.slice(0, key.indexOf(':'));
    return 'none';
  }

  private failAll(error: string): void {
    for (const [key, resolve] of [...this.waiting]) {
      this.waiting.delete(key);
      resolve({ op: 'error', id: Number(key.split(':')[1]), error });
    }
  }

  private ask(request: MediaRequest, expect: MediaReply['op'], transfer: ArrayBuffer[] = []): Promise<MediaReply> {
    return new Promise((resolve) => {
      this.waiting.set(`${expect}:${request.id}`, resolve);
      this.thread.ref();
      this.thread.postMessage(request, transfer);
    });
  }

  async open(localIp: string): Promise<MediaSession> {
    const id = this.nextId++;
    const opened = await this.ask({ op: 'open', id, localIp }, 'opened');
    if (opened.op !== 'opened') throw new Error(`cannot open an RTP socket: ${(opened as { error: string }).error}`);
    const thread = this;
    let closing: Promise<number> | undefined;
    return {
      port: opened.port,
      async play(host, port, payloadType, payload, messageFrames) {
        const copy = payload.buffer.slice(payload.byteOffset, payload.byteOffset + payload.byteLength);
        const done = await thread.ask(
          { op: 'play', id, host, port, payloadType, payload: copy as ArrayBuffer, messageFrames },
          'played',
          [copy as ArrayBuffer],
        );
        if (done.op !== 'played') throw new Error(`the media thread failed: ${(done as { error: string }).error}`);
        mediaStats.lateTicks += done.stats.lateTicks;
        mediaStats.streams++;
        return done.stats;
      },
      stop: () => thread.worker?.postMessage({ op: 'stop', id } satisfies MediaRequest),
      close() {
        closing ??= thread.worker
          ? thread.ask({ op: 'close', id }, 'closed').then((closed) => (closed.op === 'closed' ? closed.received : 0))
          : Promise.resolve(0);
        return closing;
      },
    };
  }
}

const media = new MediaThread();

/** Opens a media session for one call, its RTP socket bound to `localIp`. */
export function openMedia(localIp: string): Promise<MediaSession> {
  return media.open(localIp);
}

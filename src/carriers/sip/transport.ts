// How one call's SIP messages travel to the trunk: UDP datagrams (retransmitted by the call's transactions) or a
// TCP connection (reliable, so not retransmitted), whose byte stream is cut into messages by Content-Length.
import { createSocket } from 'node:dgram';
import { connect, type Socket as TcpSocket } from 'node:net';

export type SipTransportKind = 'udp' | 'tcp';

export interface SipTransport {
  readonly kind: SipTransportKind;
  /** TCP needs no retransmissions. */
  readonly reliable: boolean;
  /** Our port, for Via and Contact. */
  localPort(): number;
  send(text: string): void;
  onMessage(handler: (raw: Buffer) => void): void;
  /** Closes once what was sent has left (at most a second). */
  close(): Promise<void>;
}

/** Opens the transport of a call to `host:port` from `localIp`. */
export async function openTransport(
  kind: SipTransportKind,
  host: string,
  port: number,
  localIp: string,
): Promise<SipTransport> {
  return kind === 'tcp' ? openTcp(host, port, localIp) : openUdp(host, port, localIp);
}

async function openUdp(host: string, port: number, localIp: string): Promise<SipTransport> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, localIp, () => resolve()));
  let unsent = 0;
  let allSent: (() => void) | undefined;
  return {
    kind: 'udp',
    reliable: false,
    localPort: () => socket.address().port,
    send(text) {
      unsent++;
      socket.send(text, port, host, () => {
        if (--unsent === 0) allSent?.();
      });
    },
    onMessage: (handler) => void socket.on('message', handler),
    async close() {
      if (unsent > 0)
        await Promise.race([new Promise<void>((r) => (allSent = r)), new Promise((r) => setTimeout(r, 1000))]);
      socket.close();
    },
  };
}

/** Cuts a TCP byte stream into SIP messages (head, blank line, Content-Length bytes of body). */
export class SipStreamSplitter {
  private buffer = Buffer.alloc(0);

  /** Adds bytes; returns the messages they completed. */
  push(chunk: Buffer): Buffer[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const out: Buffer[] = [];
    for (;;) {
      // Keep-alive CRLFs between messages are skipped.
      while (this.buffer.length >= 2 && this.buffer[0] === 0x0d && this.buffer[1] === 0x0a)
        this.buffer = this.buffer.subarray(2);
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return out;
      const head = this.buffer.subarray(0, end).toString('utf8');
      const length = Number(/^(?:content-length|l)\s*:\s*(\d+)\s*$/im.exec(head)?.[1] ?? 0);
      const total = end + 4 + length;
      if (this.buffer.length < total) return out;
      out.push(this.buffer.subarray(0, total));
      this.buffer = this.buffer.subarray(total);
    }
  }
}

async function openTcp(host: string, port: number, localIp: string): Promise<SipTransport> {
  const socket: TcpSocket = await new Promise((resolve, reject) => {
    const s = connect({ host, port, localAddress: localIp }, () => resolve(s));
    s.once('error', reject);
  });
  socket.setNoDelay(true);
  socket.on('error', () => {}); // a reset trunk ends the call through its transactions' timeouts
  const splitter = new SipStreamSplitter();
  const handlers: Array<(raw: Buffer) => void> = [];
  socket.on('data', (chunk: Buffer) => {
    for (const message of splitter.push(chunk)) for (const h of handlers) h(message);
  });
  return {
    kind: 'tcp',
    reliable: true,
    localPort: () => socket.localPort ?? 0,
    send: (text) => void socket.write(text),
    onMessage: (handler) => void handlers.push(handler),
    close: () => new Promise<void>((resolve) => socket.end(() => resolve())),
  };
}

// Tests' customer side of the SMPP server: the `smpp` package as an ESME, with promises for each request and a
// log of the deliver_sm it receives (answered ESME_ROK unless told otherwise).
import smpp from 'smpp';
import { rawPayload } from '../../src/carriers/smpp/pdu.ts';

export interface Received {
  pdu: smpp.PDU;
  text: string;
  at: number;
}

export class Esme {
  readonly received: Received[] = [];
  /** The status deliver_sm are answered with (null: not answered). */
  answerWith: number | null = 0;
  closed = false;
  private readonly waiters: Array<() => void> = [];

  private constructor(readonly session: smpp.Session) {
    session.setMaxListeners(0);
    session.on('error', () => {});
    session.on('close', () => {
      this.closed = true;
      this.notify();
    });
    session.on('deliver_sm', (pdu: smpp.PDU) => {
      this.received.push({ pdu, text: rawPayload(pdu).toString('latin1'), at: Date.now() });
      if (this.answerWith !== null) session.send(pdu.response({ command_status: this.answerWith }));
      this.notify();
    });
    session.on('unbind', (pdu: smpp.PDU) => {
      session.send(pdu.response());
    });
  }

  /** Connects (over TLS with `tls`) to 127.0.0.1:port. */
  static connect(port: number, o: { tls?: boolean } = {}): Promise<Esme> {
    return new Promise((resolve, reject) => {
      const session = smpp.connect(
        { host: '127.0.0.1', port, ...(o.tls ? { tls: true, rejectUnauthorized: false } : {}) } as never,
        () => resolve(new Esme(session)),
      );
      session.once('error', reject);
    });
  }

  /** Sends a request and resolves with its response (or rejects when the connection closes first). */
  request(command: string, fields: smpp.PduFields = {}): Promise<smpp.PDU> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('closed'));
      const onClose = () => reject(new Error(`closed before the ${command}_resp`));
      this.session.once('close', onClose);
      const sent = this.session.send(new smpp.PDU(command, fields), (resp: smpp.PDU) => {
        this.session.off('close', onClose);
        resolve(resp);
      });
      if (!sent) reject(new Error('not writable'));
    });
  }

  /** Binds; resolves with command_status. */
  async bind(kind: 'transmitter' | 'receiver' | 'transceiver', systemId: string, password: string): Promise<number> {
    const resp = await this.request(`bind_${kind}`, { system_id: systemId, password });
    return resp.command_status;
  }

  submit(fields: smpp.PduFields): Promise<smpp.PDU> {
    return this.request('submit_sm', { source_addr: 'Yona', registered_delivery: 1, ...fields });
  }

  /** Resolves once `test` holds (checked on each deliver_sm and close), or rejects after `ms`. */
  async until(test: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
    const deadline = Date.now() + ms;
    while (!test()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  receipts(): Received[] {
    return this.received.filter((r) => ((r.pdu.esm_class as number) & 0x04) !== 0);
  }

  close(): void {
    this.session.destroy();
  }

  async unbind(): Promise<void> {
    await this.request('unbind').catch(() => {});
    this.session.destroy();
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

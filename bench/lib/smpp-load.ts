// A bounded SMPP submit load: `binds` transmitter binds to an SMPP server, each keeping `window` submit_sm
// outstanding until `messages` have been answered (or `maxSeconds` passed), timing every submit_sm_resp.
import smpp from 'smpp';
import { sendPdu } from '../../src/carriers/smpp/pdu.ts';

export interface SmppLoadOptions {
  host: string;
  port: number;
  systemId: string;
  password: string;
  binds: number;
  window: number;
  messages: number;
  maxSeconds: number;
  /** The destination of the i-th message. */
  destination(i: number): string;
  source: string;
  text: string;
}

export interface SmppLoadResult {
  binds: number;
  window: number;
  sent: number;
  accepted: number;
  /** command_status of the refusals, counted. */
  refused: Record<string, number>;
  seconds: number;
  accepted_per_s: number;
  /** submit_sm to its submit_sm_resp. */
  resp_ms: { p50: number; p99: number; max: number };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return +sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2);
}

function bind(o: SmppLoadOptions): Promise<smpp.Session> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({ host: o.host, port: o.port }, () => {
      session.bind_transmitter({ system_id: o.systemId, password: o.password }, (pdu: smpp.PDU) =>
        pdu.command_status === 0
          ? resolve(session)
          : reject(new Error(`bind_transmitter refused: command_status 0x${pdu.command_status.toString(16)}`)),
      );
    });
    session.on('error', reject);
  });
}

/** Binds, runs the load, unbinds; resolves with the figures. */
export async function runSmppLoad(o: SmppLoadOptions): Promise<SmppLoadResult> {
  const sessions = await Promise.all(Array.from({ length: o.binds }, () => bind(o)));
  const latencies = new Float64Array(o.messages);
  const refused: Record<string, number> = {};
  let next = 0;
  let answered = 0;
  let accepted = 0;
  const t0 = performance.now();
  const deadline = t0 + o.maxSeconds * 1000;
  let tLast = t0;
  await new Promise<void>((done) => {
    const pump = (session: smpp.Session, state: { outstanding: number }) => {
      while (state.outstanding < o.window && next < o.messages && performance.now() < deadline) {
        const i = next++;
        state.outstanding++;
        const sentAt = performance.now();
        const pdu = new smpp.PDU('submit_sm', {
          source_addr: o.source,
          destination_addr: o.destination(i),
          short_message: o.text,
        });
        sendPdu(session, pdu);
        pending.set(`${sessions.indexOf(session)}:${pdu.sequence_number}`, { i, sentAt, state, session });
      }
      if (answered >= next && (next >= o.messages || performance.now() >= deadline)) done();
    };
    const pending = new Map<
      string,
      { i: number; sentAt: number; state: { outstanding: number }; session: smpp.Session }
    >();
    sessions.forEach((session, s) => {
      const state = { outstanding: 0 };
      session.on('submit_sm_resp', (pdu: smpp.PDU) => {
        const key = `${s}:${pdu.sequence_number}`;
        const entry = pending.get(key);
        if (!entry) return;
        pending.delete(key);
        tLast = performance.now();
        latencies[entry.i] = tLast - entry.sentAt;
        answered++;
        entry.state.outstanding--;
        if (pdu.command_status === 0) accepted++;
        else {
          const code = `0x${pdu.command_status.toString(16).padStart(8, '0')}`;
          refused[code] = (refused[code] ?? 0) + 1;
        }
        pump(session, state);
      });
      pump(session, state);
    });
  });
  const seconds = (tLast - t0) / 1000;
  const sorted = latencies.subarray(0, answered).sort();
  await Promise.all(
    sessions.map(
      (session) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            session.close();
            resolve();
          }, 2000);
          session.unbind(() => {
            clearTimeout(timer);
            session.close();
            resolve();
          });
        }),
    ),
  );
  return {
    binds: o.binds,
    window: o.window,
    sent: next,
    accepted,
    refused,
    seconds: +seconds.toFixed(2),
    accepted_per_s: Math.round(accepted / seconds),
    resp_ms: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: percentile(sorted, 100) },
  };
}

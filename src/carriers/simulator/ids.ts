// The message ids the simulator hands out: one text id for submit_sm_resp and receipt alike (default), or a
// number written in hex on one side and in decimal on the other, like SMSCs that need a carrier's receiptIds.
import { randomBytes, randomInt } from 'node:crypto';

/** text: the same id on both sides; submit-hex / receipt-hex: that side in hex, the other in decimal. */
export const SIM_ID_FORMATS = ['text', 'submit-hex', 'receipt-hex'] as const;

/** One of SIM_ID_FORMATS. */
export type SimIdFormat = (typeof SIM_ID_FORMATS)[number];

/** Issues the ids of accepted submits: what submit_sm_resp says and what the receipt says. */
export class SimulatorIds {
  private readonly prefix = randomBytes(3).toString('hex');
  // Numeric ids start at a random multiple of 2^32 (below 2^53), so restarts do not reuse them.
  private readonly base = randomInt(1, 2 ** 20) * 2 ** 32;
  private counter = 0;

  constructor(private readonly format: SimIdFormat = 'text') {}

  /** The next id, as submit_sm_resp and as the receipt give it. */
  next(): { submit: string; receipt: string } {
    const n = ++this.counter;
    if (this.format === 'text') {
      const id = `${this.prefix}${n.toString(16).padStart(8, '0')}`;
      return { submit: id, receipt: id };
    }
    const value = this.base + n;
    const hex = value.toString(16);
    const dec = String(value);
    return this.format === 'submit-hex' ? { submit: hex, receipt: dec } : { submit: dec, receipt: hex };
  }
}

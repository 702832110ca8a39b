// The simulator's outbound deliver_sm queue (receipts and MO): kept until a receiver acknowledges it.
import smpp from 'smpp';
import { sendPdu } from '../smpp/pdu.ts';

/** A bound session able to take deliver_sm (receiver or transceiver). */
export interface DeliveryTarget {
  session: smpp.Session;
  systemId: string;
  /** deliver_sm sent on this bind and not yet answered, by sequence number. */
  outstanding: Map<number, Delivery>;
}

/** One deliver_sm waiting for (or awaiting the answer of) a receiver. */
export interface Delivery {
  fields: smpp.PduFields;
  /** Only a session bound with this system_id may take it; undefined: any receiver. */
  systemId?: string;
  done(): void;
}

/**
 * Holds deliver_sm until a receiver bound with the right system_id answers deliver_sm_resp status 0, like
 * a store-and-forward SMSC: no receiver bound, an error answer or a dropped connection all mean "later".
 */
export class DeliveryQueue {
  private queue: Delivery[] = [];
  private next = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  /** deliver_sm PDUs written (including redeliveries). */
  sent = 0;

  constructor(
    private readonly targets: () => DeliveryTarget[],
    private readonly retryMs = 500,
  ) {}

  /** Queues a deliver_sm; resolves once a receiver acknowledged it. */
  push(fields: smpp.PduFields, systemId?: string): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ fields, systemId, done: resolve });
      this.flush();
    });
  }

  /** Number of deliver_sm not yet sent to any receiver. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Tries to send everything queued (called on bind and after failures). */
  flush(): void {
    if (this.queue.length === 0) return;
    const targets = this.targets();
    if (targets.length === 0) return;
    const keep: Delivery[] = [];
    for (const delivery of this.queue) {
      const target = this.pick(targets, delivery.systemId);
      if (!target || !this.send(target, delivery)) keep.push(delivery);
    }
    this.queue = keep;
    if (keep.length > 0) this.retryLater();
  }

  /** A deliver_sm_resp arrived on a target's session. */
  answered(target: DeliveryTarget, pdu: smpp.PDU): void {
    const delivery = target.outstanding.get(pdu.sequence_number);
    if (!delivery) return;
    target.outstanding.delete(pdu.sequence_number);
    if (pdu.command_status === 0) return delivery.done();
    this.queue.push(delivery);
    this.retryLater();
  }

  /** A target's connection closed: everything it had not answered goes back in the queue. */
  lost(target: DeliveryTarget): void {
    this.queue.push(...target.outstanding.values());
    target.outstanding.clear();
    this.retryLater();
  }

  /** Drops everything (simulator stop). */
  clear(): void {
    clearTimeout(this.retryTimer);
    this.queue = [];
  }

  private pick(targets: DeliveryTarget[], systemId: string | undefined): DeliveryTarget | undefined {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(this.next + i) % targets.length];
      if (systemId === undefined || target.systemId === systemId) {
        this.next = (this.next + i + 1) % targets.length;
        return target;
      }
    }
    return undefined;
  }

  private send(target: DeliveryTarget, delivery: Delivery): boolean {
    const pdu = new smpp.PDU('deliver_sm', delivery.fields);
    if (!sendPdu(target.session, pdu)) return false;
    target.outstanding.set(pdu.sequence_number, delivery);
    this.sent++;
    return true;
  }

  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flush();
    }, this.retryMs);
  }
}

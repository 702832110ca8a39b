// The simulator's log of received messages, with duplicate counting by (destination, text).

/** One message as the simulator received it (parts reassembled and decoded). */
export interface ReceivedMessage {
  destination: string;
  source: string;
  text: string;
  parts: number;
  dataCoding: number;
  messageIds: string[];
  receivedAt: number;
  /** Remote address:port of the bind the message came on. */
  peer: string;
  /** Set when the text came whole in one submit_sm's message_payload TLV. */
  messagePayload?: true;
  /** The state of the receipt the simulator sent for it (DELIVRD, UNDELIV, ...), once sent. */
  receipt?: string;
}

/** Bounded message log; the oldest entries go first once `max` is reached. */
export class MessageLog {
  private readonly entries: ReceivedMessage[] = [];
  private readonly seen = new Map<string, number>();
  /** Messages recorded since start. */
  received = 0;
  /** Messages whose (destination, text) was already in the log. */
  duplicates = 0;

  constructor(private readonly max = 100_000) {}

  /** Adds a message and counts it as a duplicate when its (destination, text) was seen. */
  record(message: ReceivedMessage): void {
    const key = `${message.destination}|${message.text}`;
    const count = this.seen.get(key) ?? 0;
    if (count > 0) this.duplicates++;
    this.seen.set(key, count + 1);
    this.received++;
    this.entries.push(message);
    if (this.entries.length > this.max) {
      const old = this.entries.shift()!;
      const oldKey = `${old.destination}|${old.text}`;
      const left = (this.seen.get(oldKey) ?? 1) - 1;
      if (left > 0) this.seen.set(oldKey, left);
      else this.seen.delete(oldKey);
    }
  }

  /** Notes the receipt sent for the message with this submit id (searched from the newest). */
  receiptSent(messageId: string, state: string): void {
    for (let i = this.entries.length - 1; i >= 0; i--)
      if (this.entries[i].messageIds.includes(messageId)) {
        this.entries[i].receipt = state;
        return;
      }
  }

  /** Messages, oldest first, optionally only those to one destination (with or without '+'). */
  list(filter: { to?: string } = {}): ReceivedMessage[] {
    const to = filter.to?.replace(/^\+/, '');
    return to ? this.entries.filter((m) => m.destination === to) : [...this.entries];
  }
}

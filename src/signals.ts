// In-process wake-ups: a committed write tells the worker that owns the topic to look now, not at its next poll.
import { EventEmitter } from 'node:events';

/** What a wake-up is about: new messages to dispatch, push events to post, campaigns to schedule. */
export type Topic = 'dispatch' | 'push' | 'schedule';
/** Wake-ups within the process only: also events a carrier's webhook stored (never held in a transaction). */
export type LocalTopic = Topic | 'ingress';

/** Signals workers that new rows await them (after commit); a no-op in dry-run. */
export interface Signals {
  notify(topic: Topic): void;
}

/** Notifications held while a transaction runs: `release` passes them on once it committed. */
export class HeldSignals implements Signals {
  private readonly topics = new Set<Topic>();

  notify(topic: Topic): void {
    this.topics.add(topic);
  }

  /** Passes the held notifications on to `to` (call it after the commit). */
  release(to: Signals): void {
    for (const topic of this.topics) to.notify(topic);
    this.topics.clear();
  }
}

/** A Signals implementation that workers subscribe to. */
export class LocalSignals implements Signals {
  private readonly emitter = new EventEmitter();

  notify(topic: LocalTopic): void {
    this.emitter.emit(topic);
  }

  /** Calls `listener` on every notify of `topic`; returns an unsubscribe function. */
  subscribe(topic: LocalTopic, listener: () => void): () => void {
    this.emitter.on(topic, listener);
    return () => this.emitter.off(topic, listener);
  }
}

// In-process wake-ups: a committed write tells the worker that owns the topic to look now, not at its next poll.
import { EventEmitter } from 'node:events';
import type { Signals } from './operations/types.ts';

export type Topic = Parameters<Signals['notify']>[0];

/** A Signals implementation that workers subscribe to. */
export class LocalSignals implements Signals {
  private readonly emitter = new EventEmitter();

  notify(topic: Topic): void {
    this.emitter.emit(topic);
  }

  /** Calls `listener` on every notify of `topic`; returns an unsubscribe function. */
  subscribe(topic: Topic, listener: () => void): () => void {
    this.emitter.on(topic, listener);
    return () => this.emitter.off(topic, listener);
  }
}

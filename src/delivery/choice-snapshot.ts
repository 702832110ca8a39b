// What the choice of a carrier for one message depends on (carrier-choice.ts), read from the dispatcher's live
// state just before it asks: each carrier of the message's route this node runs (bound, its daily cap and today's
// use, its throttling and the line waiting for its permits) and the walk so far.
import type { Carrier } from '../carriers/types.ts';
import type { ClaimedMessage } from '../store/dispatch.ts';
import type { CarrierView, ChoicePolicy, ChoiceSnapshot, TriedCarrier } from './carrier-choice.ts';
import type { DailyCaps } from './daily-caps.ts';
import type { RouteCarrier } from './routing.ts';

/** The live state a snapshot is read from. */
export interface SnapshotSources {
  carriers: Map<string, Carrier>;
  caps?: DailyCaps;
  settings: ChoicePolicy;
  clock: () => number;
}

/** The snapshot the dispatcher decides a message's next step over; `waiting` counts a carrier's line for permits. */
export function readSnapshot(
  message: ClaimedMessage,
  route: readonly RouteCarrier[],
  call: boolean,
  tried: readonly TriedCarrier[],
  { carriers, caps, settings, clock }: SnapshotSources,
  waiting: (carrier: string) => number,
): ChoiceSnapshot {
  const views: CarrierView[] = [];
  for (const entry of route) {
    const carrier = carriers.get(entry.name);
    if (!carrier) continue;
    const dailyCap = caps?.dailyCap(entry.name);
    const inLine = waiting(entry.name);
    views.push({
      name: entry.name,
      weight: entry.weight,
      up: carrier.canSubmit(),
      dailyCap,
      usedToday: dailyCap === undefined || !caps ? 0 : caps.used(entry.name),
      // Read only when its line is long enough for the throttling to matter (condition() builds a report).
      throttled: inLine >= settings.throttleBacklog && carrier.condition?.().throttledSince !== undefined,
      waiting: inLine,
    });
  }
  return {
    route: views,
    key: message.id,
    parts: message.parts,
    call,
    attempts: message.attempts,
    now: clock(),
    policy: settings,
    tried,
  };
}

// Filters typed into the operator console's lists: a day range (dd/mm/yyyy or a date picker's yyyy-mm-dd, read
// in the service's time zone) and short texts, each kept as typed to show again in the form.
import { fromZoned } from '../../domain/dates.ts';
import { nextDay, readDay } from '../console/date-input.ts';

/** The start of the typed day (`from`), or the end of it (`to`: the next day's start), in `timeZone`. */
export function dayBound(text: string | undefined, timeZone: string, end: boolean): number | undefined {
  const day = text ? readDay(text) : undefined;
  if (!day) return undefined;
  const d = end ? nextDay(day) : day;
  return fromZoned({ ...d, hour: 0, minute: 0, second: 0 }, timeZone);
}

/** A short filter text (trimmed, at most 200 characters), or undefined when empty. */
export function filterText(text: string | undefined): string | undefined {
  const t = (text ?? '').trim().slice(0, 200);
  return t === '' ? undefined : t;
}

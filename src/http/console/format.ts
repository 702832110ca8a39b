// How the console writes numbers and times: whole numbers with thousands separators (1,234,567), and one date
// format everywhere, dd/mm/yyyy hh:mm:ss in the account's time zone.
import { zonedParts } from '../../domain/dates.ts';

const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const RATE = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export function num(n: number | string | bigint): string {
  return WHOLE.format(Number(n));
}

/** A share as a percentage with one decimal (98.5%); a dash when there is nothing to divide. */
export function percent(part: number, whole: number): string {
  return whole > 0 ? `${RATE.format((part / whole) * 100)}%` : '–';
}

// A zone's offset, read once per quarter hour of time (every zone changes its offset on a quarter hour): an
// export writes 100,000 times in a second where asking Intl for each would take several.
const QUARTER_HOUR = 15 * 60_000;
const offsets = new Map<string, number>();

function offsetAt(epochMs: number, timeZone: string): number {
  const quarter = Math.floor(epochMs / QUARTER_HOUR) * QUARTER_HOUR;
  const key = `${timeZone}|${quarter}`;
  let offset = offsets.get(key);
  if (offset === undefined) {
    const p = zonedParts(quarter, timeZone);
    offset = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - quarter;
    if (offsets.size > 10_000) offsets.clear();
    offsets.set(key, offset);
  }
  return offset;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

/** dd/mm/yyyy hh:mm:ss in the zone (domain/dates.ts's formatLong, read faster). */
export function when(epochMs: number | null | undefined, timeZone: string): string {
  if (epochMs === null || epochMs === undefined) return '';
  const ms = Number(epochMs);
  const d = new Date(ms + offsetAt(ms, timeZone));
  return `${two(d.getUTCDate())}/${two(d.getUTCMonth() + 1)}/${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

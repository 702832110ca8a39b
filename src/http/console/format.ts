// How the console writes numbers and times: whole numbers with thousands separators (1,234,567), and one date
// format everywhere, dd/mm/yyyy hh:mm:ss in the account's time zone.
import { formatLong } from '../../domain/dates.ts';

const WHOLE = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const RATE = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export function num(n: number | string | bigint): string {
  return WHOLE.format(Number(n));
}

/** A share as a percentage with one decimal (98.5%); a dash when there is nothing to divide. */
export function percent(part: number, whole: number): string {
  return whole > 0 ? `${RATE.format((part / whole) * 100)}%` : '–';
}

export function when(epochMs: number | null | undefined, timeZone: string): string {
  return epochMs === null || epochMs === undefined ? '' : formatLong(Number(epochMs), timeZone);
}

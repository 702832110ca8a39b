// Dates typed into the console's forms, read as the console shows them: dd/mm/yyyy (and dd/mm/yyyy hh:mm for a
// time), with d.m.yyyy and d-m-yyyy and a two-digit year also understood; the ISO forms a browser's native date
// picker sends (yyyy-mm-dd, yyyy-mm-ddThh:mm) are read too. A day that does not exist (31/02) is not a date.

export interface TypedDay {
  year: number;
  month: number;
  day: number;
}

export interface TypedTime extends TypedDay {
  hour: number;
  minute: number;
}

const SHOWN = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;

function real(year: number, month: number, day: number): TypedDay | undefined {
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return undefined;
  return { year, month, day };
}

/** A day typed as dd/mm/yyyy (or sent as yyyy-mm-dd); undefined when it is not one. */
export function readDay(text: string): TypedDay | undefined {
  const t = text.trim();
  const iso = ISO.exec(t);
  if (iso) return real(Number(iso[1]), Number(iso[2]), Number(iso[3]));
  const shown = SHOWN.exec(t);
  if (!shown) return undefined;
  const year = shown[3].length === 2 ? 2000 + Number(shown[3]) : Number(shown[3]);
  return real(year, Number(shown[2]), Number(shown[1]));
}

/** A day and time typed as dd/mm/yyyy hh:mm (or sent as yyyy-mm-ddThh:mm); undefined when it is not one. */
export function readDayTime(text: string): TypedTime | undefined {
  const m = /^(.+?)(?:T|\s+)(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const day = readDay(m[1]);
  const [hour, minute] = [Number(m[2]), Number(m[3])];
  if (!day || hour > 23 || minute > 59) return undefined;
  return { ...day, hour, minute };
}

/** The day after `d`. */
export function nextDay(d: TypedDay): TypedDay {
  const next = new Date(Date.UTC(d.year, d.month - 1, d.day + 1));
  return { year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate() };
}

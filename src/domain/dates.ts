// Wire dates: `dd/mm/yy hh:mm` (requests), `dd/mm/yy hh:mm:ss` (events), `dd/mm/yyyy hh:mm:ss` (token expiry),
// always in the account's time zone.

export const DEFAULT_TIME_ZONE = 'Asia/Jerusalem';
/** One day in milliseconds. */
export const DAY_MS = 24 * 3600_000;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

// The last second each zone's fields were read for: pushed reports and listings format many instants of the same
// second, and Intl's formatToParts cost more than the rest of a push's fields together.
const lastSecond = new Map<string, { second: number; parts: Readonly<Parts> }>();

/** Calendar fields of an instant as seen in a time zone. */
export function zonedParts(epochMs: number, timeZone: string): Parts {
  const second = Math.floor(epochMs / 1000);
  const last = lastSecond.get(timeZone);
  if (last?.second === second) return { ...last.parts };
  const out: Record<string, number> = {};
  for (const p of formatter(timeZone).formatToParts(new Date(epochMs))) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  const parts = {
    year: out.year,
    month: out.month,
    day: out.day,
    hour: out.hour,
    minute: out.minute,
    second: out.second,
  };
  lastSecond.set(timeZone, { second, parts });
  return { ...parts };
}

/** True when the string names a time zone Intl knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

const two = (n: number) => String(n).padStart(2, '0');

/** `dd/mm/yy hh:mm` (request/reply dates). */
export function formatShort(epochMs: number, timeZone: string): string {
  const p = zonedParts(epochMs, timeZone);
  return `${two(p.day)}/${two(p.month)}/${two(p.year % 100)} ${two(p.hour)}:${two(p.minute)}`;
}

/** `dd/mm/yy hh:mm:ss` (pushed and reported event dates). */
export function formatEvent(epochMs: number, timeZone: string): string {
  const p = zonedParts(epochMs, timeZone);
  return `${two(p.day)}/${two(p.month)}/${two(p.year % 100)} ${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/** `dd/mm/yyyy hh:mm:ss` (token expiration_date). */
export function formatLong(epochMs: number, timeZone: string): string {
  const p = zonedParts(epochMs, timeZone);
  return `${two(p.day)}/${two(p.month)}/${p.year} ${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/**
 * ISO-8601 with the zone's offset, to the millisecond (`2026-11-26T06:08:42.828+02:00`): how times a person
 * reads outside the wire formats (CLI listings, logs) are written, in the operator's or the account's zone.
 */
export function formatIso(epochMs: number, timeZone: string): string {
  const p = zonedParts(epochMs, timeZone);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const offset = Math.round((wall - Math.floor(epochMs / 1000) * 1000) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const ms = String(((epochMs % 1000) + 1000) % 1000).padStart(3, '0');
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}:${two(p.second)}.${ms}${sign}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
}

/** Instant of a wall-clock time in a zone (DST-aware: the offset is read at the guessed instant, twice). */
export function fromZoned(p: Parts, timeZone: string): number {
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  let guess = wall;
  for (let i = 0; i < 2; i++) {
    const seen = zonedParts(guess, timeZone);
    const seenWall = Date.UTC(seen.year, seen.month - 1, seen.day, seen.hour, seen.minute, seen.second);
    guess += wall - seenWall;
  }
  return guess;
}

const SHORT = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$/;

/** Parses `dd/mm/yy hh:mm` (also yyyy and :ss) in a zone; null when malformed or not a real date. */
export function parseShort(text: string, timeZone: string): number | null {
  const m = SHORT.exec(text);
  if (!m) return null;
  const [day, month, yearRaw, hour, minute] = [m[1], m[2], m[3], m[4], m[5]].map(Number);
  const second = m[6] ? Number(m[6]) : 0;
  const year = m[3].length === 2 ? 2000 + yearRaw : yearRaw;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  return fromZoned({ year, month, day, hour, minute, second }, timeZone);
}

/** The calendar day of an instant in a zone, `YYYY-MM-DD` (a carrier's daily cap counts per such day). */
export function calendarDay(epochMs: number, timeZone: string): string {
  const p = zonedParts(epochMs, timeZone);
  return `${p.year}-${two(p.month)}-${two(p.day)}`;
}

/** The instants a calendar month (`YYYY-MM`) starts and ends at in a zone; null when malformed. */
export function monthSpan(month: string, timeZone: string): { start: number; end: number } | null {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) return null;
  const [year, mon] = [Number(m[1]), Number(m[2])];
  const at = (y: number, mo: number) =>
    fromZoned({ year: y, month: mo, day: 1, hour: 0, minute: 0, second: 0 }, timeZone);
  return { start: at(year, mon), end: mon === 12 ? at(year + 1, 1) : at(year, mon + 1) };
}

/** The month (`YYYY-MM`) of an instant in a zone. */
export function calendarMonth(epochMs: number, timeZone: string): string {
  return calendarDay(epochMs, timeZone).slice(0, 7);
}

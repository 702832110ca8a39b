// Money on the wire is shekels as a string; in the store it is integer agorot.

/** Agorot to the wire's shekel string, e.g. 1250 -> "12.50". */
export function formatShekels(agorot: number): string {
  const sign = agorot < 0 ? '-' : '';
  const abs = Math.abs(agorot);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Shekels ("12.5", "12.50", "12") to agorot; null when malformed or more than two decimals. */
export function parseShekels(text: string): number | null {
  const m = /^\s*(\d+)(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

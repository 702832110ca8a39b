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

/** Thousandths of an agora to shekels: two decimals, and the third to fifth only when not zero (1234567 -> "12.34567"). */
export function formatMilliShekels(milli: number): string {
  const sign = milli < 0 ? '-' : '';
  const abs = Math.abs(Math.round(milli));
  const shekels = Math.floor(abs / 100_000);
  const fraction = String(abs % 100_000)
    .padStart(5, '0')
    .replace(/0{1,3}$/, '');
  return `${sign}${shekels}.${fraction}`;
}

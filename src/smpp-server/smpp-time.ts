// SMPP times (schedule_delivery_time, validity_period) as the package decodes them: a Date for absolute and
// relative times alike, anything else when the field was empty or unreadable.

/** The time a decoded SMPP time field names, in epoch ms; undefined when empty; null when unreadable. */
export function smppTime(value: unknown): number | undefined | null {
  if (value === undefined || value === null || value === '') return undefined;
  if (value instanceof Date) {
    const at = value.getTime();
    return Number.isFinite(at) ? at : null;
  }
  return null;
}

/** SMPP's absolute time format, YYMMDDhhmmss000+ (UTC), for query_sm_resp's final_date. */
export function formatSmppTime(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}` +
    `${two(d.getUTCHours())}${two(d.getUTCMinutes())}${two(d.getUTCSeconds())}000+`
  );
}

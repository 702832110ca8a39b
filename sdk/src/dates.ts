// Report windows: dlr, dlrByDate and incoming take `from` and `to` as dd/mm/yy hh:mm in the account's time zone,
// at most one week apart.
const parts = (date: Date, timeZone: string) => {
  const format = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: '2-digit',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  const get = (type: string) => format.formatToParts(date).find((p) => p.type === type)?.value ?? '';
  return `${get('day')}/${get('month')}/${get('year')} ${get('hour')}:${get('minute')}`;
};

/** `{ from, to }` for a report call: the last `hours` hours up to now, plus a minute (Israel time by default). */
export function reportWindow(hours = 24, timeZone = 'Asia/Jerusalem', now = new Date()): { from: string; to: string } {
  const from = new Date(now.getTime() - hours * 3_600_000);
  const to = new Date(now.getTime() + 60_000);
  return { from: parts(from, timeZone), to: parts(to, timeZone) };
}

// The send preview's numbers left out, each as it was given with the reason in words: those the sms operation
// refused (blocked, not a valid number, a landline, abroad, temporarily blocked...; its reply lists the first
// thousand and counts the rest), the typed numbers given more than once (sent once), and, apart, the typed
// numbers known to refuse texts (filtered handsets), which are sent to but will most likely fail.
import { normalizePhone, toNational } from '../../domain/phone.ts';
import type { Rejected } from '../../operations/send/rejections.ts';
import { filteredAmong } from '../../store/read-models.ts';
import { num } from './format.ts';
import { html, type Html, type HtmlValue, table } from './html.ts';
import { fmt, type Messages } from './i18n.ts';
import type { PageContext } from './router.ts';

/** Most typed numbers listed as repeated or filtered (the operation lists as many refused ones). */
const MAX_LISTED = 1000;

const AS_READ = new Set(['blocked', 'temp_bl']);

function reasonText(t: Messages, reason: string): string {
  const key = `reason_${reason}` as keyof Messages;
  return Object.hasOwn(t, key) ? t[key] : reason;
}

/** Typed numbers given again after a first time (as the operation counts them: the same number once normalised). */
function repeats(typed: string[]): { again: string[]; unique: string[] } {
  const seen = new Set<string>();
  const again: string[] = [];
  for (const phone of typed) {
    const n = normalizePhone(phone, { allowInternational: true });
    if (!n.ok) continue;
    if (seen.has(n.e164)) again.push(phone);
    else seen.add(n.e164);
  }
  return { again, unique: [...seen] };
}

export async function leftOut(
  c: PageContext,
  typed: string[],
  refused: Rejected[],
  refusedTotal: number,
): Promise<Html> {
  const { t } = c;
  const { again, unique } = repeats(typed);
  const rows: HtmlValue[][] = [
    // Blocked numbers are named once read (international form): shown as the console shows numbers.
    ...refused.map((r) => [
      html`<span class="nowrap" dir="ltr">${AS_READ.has(r.reason) ? toNational(r.phone) : r.phone}</span>`,
      reasonText(t, r.reason),
    ]),
    ...again
      .slice(0, MAX_LISTED)
      .map((phone) => [html`<span class="nowrap" dir="ltr">${phone}</span>`, t.reason_duplicate]),
  ];
  const more = refusedTotal - refused.length + Math.max(0, again.length - MAX_LISTED);
  const filtered = [...(await filteredAmong(c.app.store.db, unique.slice(0, MAX_LISTED)))];
  return html`<h3 id="left-out">${t.sendLeftOutTitle}</h3>${
    rows.length
      ? table(t.sendLeftOutCaption, [t.sendLeftOutNumber, t.sendLeftOutReason], rows, '')
      : html`<p>${t.sendLeftOutNone}</p>`
  }${more > 0 ? html`<p>${fmt(t.sendLeftOutMore, { count: num(more) })}</p>` : ''}${
    filtered.length
      ? html`<p class="notice error">${t.sendLikelyFail}</p>${table(
          t.reason_filtered,
          [t.sendLeftOutNumber, t.sendLeftOutReason],
          filtered.map((phone) => [
            html`<span class="nowrap" dir="ltr">${toNational(phone)}</span>`,
            t.reason_filtered,
          ]),
          '',
        )}`
      : ''
  }`;
}

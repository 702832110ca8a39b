// The balance page's additions: the low-balance warning level (the overview warns below it) and the ledger as a
// streamed CSV download (every entry newest first, read 1,000 at a time).
import { formatShekels } from '../../domain/money.ts';
import { setLowBalanceWarning } from '../../operations/account-security.ts';
import { runOperation } from '../../operations/execute.ts';
import { lowBalanceThreshold } from '../../store/read-models.ts';
import { ledgerPage, type LedgerEntry } from '../../store/read-models.ts';
import type { Queryable } from '../../store/engine/db.ts';
import { sendCsv } from './csv-export.ts';
import { when } from './format.ts';
import { csrfField, html, type Html } from './html.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

/** The threshold form and the ledger download link, for the balance page. */
export async function balanceExtras(c: PageContext): Promise<Html> {
  const { t } = c;
  const threshold = await lowBalanceThreshold(c.app.store.db, c.account.id);
  return html`<p><a class="button" href="/console/balance/ledger.csv" download>${t.exportLedger}</a></p>
<form method="post" action="/console/balance/low-balance" class="card">${csrfField(c.session.csrf)}<h2>${t.lowBalanceTitle}</h2>
<label for="low-balance">${t.lowBalanceLabel}</label><input id="low-balance" name="credits" inputmode="numeric" maxlength="12" value="${threshold ?? ''}">
<button type="submit">${t.save}</button></form>`;
}

async function* allLedger(db: Queryable, accountId: number): AsyncGenerator<LedgerEntry> {
  let before: number | undefined;
  for (;;) {
    const rows = await ledgerPage(db, accountId, 1000, before);
    yield* rows;
    if (rows.length < 1000) return;
    before = rows[rows.length - 1].id;
  }
}

export function registerBalanceExtras(r: ConsoleRouter): void {
  r.post('/console/balance/low-balance', async (c) => {
    const raw = (c.form.get('credits') ?? '').trim().replace(/,/g, '');
    if (raw !== '' && !/^\d{1,12}$/.test(raw)) return c.redirect('/console/balance', { error: 'lowBalanceBad' });
    const saved = await runOperation(c.app, c.account, setLowBalanceWarning, {
      credits: raw === '' ? null : Number(raw),
    });
    return c.redirect('/console/balance', saved.status === 0 ? { ok: 'lowBalanceSaved' } : { error: 'lowBalanceBad' });
  });
  r.get('/console/balance/ledger.csv', async (c) => {
    const tz = c.account.time_zone;
    return sendCsv(
      c.reply,
      'ledger.csv',
      ['time', 'currency', 'amount', 'amount_shekels', 'reason', 'ref_type', 'ref_id'],
      allLedger(c.app.store.db, c.account.id),
      (e) => [
        when(e.created_at, tz),
        e.currency,
        e.amount,
        e.currency === 'credits' ? '' : formatShekels(e.amount),
        e.reason,
        e.ref_type,
        e.ref_id,
      ],
    );
  });
}

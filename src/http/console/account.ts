// Balance and ledger, the blocklist (block and unblock numbers; blocks made here are recorded with source
// `console`). The senders page is senders.ts.
import { formatLong } from '../../domain/dates.ts';
import { num, shekels } from './format.ts';
import { maskPhone, normalizePhone, toNational } from '../../domain/phone.ts';
import { addNumBL, rmNumBL } from '../../operations/blocklist.ts';
import { blocklistPage, ledgerPage, type BlocklistCursor } from '../../store/read-models.ts';
import { actionForm, csrfField, html, olderNewerPager, table, type HtmlValue } from './html.ts';
import { fmt } from './i18n.ts';
import { runOperation } from '../../operations/execute.ts';
import { balanceExtras } from './balance-extras.ts';
import { whole, type ConsoleRouter, type PageContext } from './router.ts';

const LEDGER_ROWS = 200;
const BLOCKLIST_ROWS = 500;
const MAX_PHONES = 10_000;

async function balancePage(c: PageContext) {
  const { t, account } = c;
  const before = whole(c.query.before);
  const entries = await ledgerPage(c.app.store.db, account.id, LEDGER_ROWS, before);
  const rows = entries.map((e): HtmlValue[] => [
    formatLong(e.created_at, account.time_zone),
    html`<span class="num">${e.currency === 'credits' ? num(e.amount) : shekels(e.amount)}</span>`,
    e.currency === 'credits' ? t.credits : t.international,
    e.reason,
  ]);
  const body = html`<ul class="stats"><li>${t.credits}<b>${num(account.credits)}</b></li>
<li>${t.international}<b>${shekels(account.intl_agorot)}</b></li></ul>
<h2>${t.ledger}</h2><p class="muted">${fmt(t.ledgerNewest, { n: num(LEDGER_ROWS) })}</p>
${table(t.ledger, [t.pushWhen, t.amount, t.currency, t.reason], rows, t.none)}
${olderNewerPager(t, '/console/balance', before !== undefined, entries.length === LEDGER_ROWS ? String(entries.at(-1)!.id) : undefined)}
${await balanceExtras(c)}`;
  return c.render(t.navBalance, body);
}

// `before=TIME.ID`: the blocklist page after that entry.
function blocklistCursor(text: string | undefined): BlocklistCursor | undefined {
  const m = text === undefined ? null : /^(\d{1,15})\.(\d{1,15})$/.exec(text);
  return m ? { createdAt: Number(m[1]), id: Number(m[2]) } : undefined;
}

async function renderBlocklist(
  c: PageContext,
  o: { notice?: { kind: 'ok' | 'error'; text: string }; phones?: string } = {},
) {
  const { t, account } = c;
  const before = blocklistCursor(c.query.before);
  const entries = await blocklistPage(c.app.store.db, account.id, BLOCKLIST_ROWS, before);
  const last = entries.at(-1);
  const rows = entries.map((e): HtmlValue[] => [
    toNational(e.phone),
    e.source,
    formatLong(Number(e.created_at), account.time_zone),
    actionForm(
      '/console/blocklist/remove',
      c.session.csrf,
      t.unblock,
      { phone: e.phone },
      { confirm: fmt(t.unblockConfirm, { phone: maskPhone(e.phone) }) },
    ),
  ]);
  const form = html`<form method="post" action="/console/blocklist" class="card">${csrfField(c.session.csrf)}<h2>${t.blockAdd}</h2>
<label for="block-phones">${t.blockPhones}</label><textarea id="block-phones" name="phones" required>${o.phones ?? ''}</textarea>
<button type="submit">${t.block}</button></form>`;
  const pager = olderNewerPager(
    t,
    '/console/blocklist',
    before !== undefined,
    entries.length === BLOCKLIST_ROWS && last ? `${Number(last.created_at)}.${Number(last.id)}` : undefined,
  );
  return c.render(
    t.navBlocklist,
    html`<p>${t.blockIntro}</p>${form}${table(t.navBlocklist, [t.phone, t.blockSource, t.created, t.actions], rows, t.blockNone)}${pager}`,
    { notice: o.notice },
  );
}

export function registerAccountPages(r: ConsoleRouter): void {
  r.get('/console/balance', (c) => balancePage(c));
  r.get('/console/blocklist', (c) => renderBlocklist(c));

  r.post('/console/blocklist', async (c) => {
    const text = (c.form.get('phones') ?? '').slice(0, 200_000);
    const given = text
      .split(/[\s,;]+/)
      .map((p) => p.trim())
      .filter((p) => p !== '');
    if (given.length === 0) return renderBlocklist(c, { notice: { kind: 'error', text: c.t.blockNone } });
    if (given.length > MAX_PHONES)
      return renderBlocklist(c, {
        notice: { kind: 'error', text: fmt(c.t.csvTooMany, { max: MAX_PHONES }) },
        phones: text,
      });
    const bad = given.filter((p) => !normalizePhone(p, { allowInternational: true }).ok);
    if (bad.length)
      return renderBlocklist(c, {
        notice: { kind: 'error', text: fmt(c.t.blockInvalid, { phones: bad.slice(0, 20).join(', ') }) },
        phones: text,
      });
    const phones = given.map((p) => (normalizePhone(p, { allowInternational: true }) as { e164: string }).e164);
    const reply = await runOperation(c.app, c.account, addNumBL, { phones: { phone: phones } });
    if (reply.added === undefined)
      return renderBlocklist(c, { notice: { kind: 'error', text: reply.message }, phones: text });
    // Redirected (303), so reloading the page it lands on does not block the numbers again.
    return c.redirect('/console/blocklist', {
      ok: 'blockAdded',
      counts: { added: reply.added, already: reply.already_listed },
    });
  });

  r.post('/console/blocklist/remove', async (c) => {
    const phone = c.form.get('phone') ?? '';
    const reply = await runOperation(c.app, c.account, rmNumBL, { phones: { phone: [phone] }, reason: 'console' });
    return c.redirect('/console/blocklist', reply.deleted ? { ok: 'unblocked' } : { error: 'notBlocked' });
  });
}

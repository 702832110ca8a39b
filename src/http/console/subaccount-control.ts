// A reseller's everyday view of its sub-accounts: each one's usage this month and state, its message log, and
// suspend / resume (a suspended account's API tokens and console sign-in are refused until it is resumed; its
// data, balance and tokens stay as they were). Anyone but the sub-account's reseller gets a 404 (an account that
// is not a reseller: by the page table).
import { fromZoned, zonedParts } from '../../domain/dates.ts';
import { holdSubAccount } from '../../operations/account-security.ts';
import { runOperation } from '../../operations/execute.ts';
import type { Account } from '../../store/accounts.ts';
import { findAccountByUsername } from '../../store/read-models.ts';
import { messageLogPage } from '../../store/read-models.ts';
import { sendsSince } from '../../store/read-models.ts';
import { subAccountSuspensions } from '../../store/read-models.ts';
import { num } from './format.ts';
import { actionForm, html, type HtmlValue } from './html.ts';
import { fmt } from './i18n.ts';
import { filterForm, parseLogQuery } from './message-log.ts';
import { badFiltersNotice, LOG_PAGE_SIZE, logSection } from './messages.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

/** Per sub-account (by username): its usage this month, its state, and its links and suspend/resume button. */
export async function subAccountCells(c: PageContext, usernames: string[]): Promise<Map<string, HtmlValue[]>> {
  const { t } = c;
  const db = c.app.store.db;
  const tz = c.account.time_zone;
  const p = zonedParts(c.now, tz);
  const month = fromZoned({ ...p, day: 1, hour: 0, minute: 0, second: 0 }, tz);
  const suspended = await subAccountSuspensions(db, c.account.id);
  const out = new Map<string, HtmlValue[]>();
  for (const username of usernames) {
    const sub = await findAccountByUsername(db, username);
    if (!sub) continue;
    const usage = await sendsSince(db, sub.id, month);
    const isSuspended = suspended.get(username) != null;
    const u = encodeURIComponent(username);
    out.set(username, [
      fmt(t.overviewSends, { messages: num(usage.messages), credits: num(usage.credits) }),
      isSuspended ? html`<strong>${t.subSuspended}</strong>` : t.subActive,
      html`<a href="/console/subaccounts/${u}/messages">${t.navMessages}</a> ${
        isSuspended
          ? actionForm('/console/subaccounts/resume', c.session.csrf, t.subResume, { username })
          : actionForm(
              '/console/subaccounts/suspend',
              c.session.csrf,
              t.subSuspend,
              { username },
              { confirm: fmt(t.subSuspendConfirm, { username }), danger: true },
            )
      }`,
    ]);
  }
  return out;
}

async function ownSub(c: PageContext): Promise<Account | undefined> {
  const sub = await findAccountByUsername(c.app.store.db, c.params.username ?? '');
  return sub && Number(sub.parent_id) === Number(c.account.id) ? sub : undefined;
}

async function subMessagesPage(c: PageContext) {
  const { t } = c;
  const sub = await ownSub(c);
  if (!sub) return c.render(t.notFound, html`<p>${t.notFoundText}</p>`, { code: 404 });
  const path = `/console/subaccounts/${encodeURIComponent(sub.username)}/messages`;
  const parsed = parseLogQuery(c.query, sub.time_zone);
  const rows = await messageLogPage(c.app.store.db, sub.id, parsed.filter, parsed.cursor, LOG_PAGE_SIZE);
  return c.render(
    fmt(t.subMessages, { username: sub.username }),
    html`<p><a href="/console/subaccounts">${t.navSubs}</a></p>${filterForm(t, path, parsed.values)}${logSection(c, parsed, rows, path)}`,
    { notice: badFiltersNotice(c, parsed) },
  );
}

export function registerSubaccountControl(r: ConsoleRouter): void {
  r.get('/console/subaccounts/:username/messages', (c) => subMessagesPage(c));
  for (const [action, suspend] of [
    ['suspend', true],
    ['resume', false],
  ] as const) {
    r.post(`/console/subaccounts/${action}`, async (c) => {
      const username = (c.form.get('username') ?? '').slice(0, 200);
      const held = await runOperation(c.app, c.account, holdSubAccount, { username, suspend });
      if (held.done !== true) return c.redirect('/console/subaccounts', { error: 'subNotYours' });
      return c.redirect('/console/subaccounts', { ok: suspend ? 'subSuspendedOk' : 'subResumedOk' });
    });
  }
}

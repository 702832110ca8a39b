// Authorised IPs: the check on or off, addresses and CIDRs added and removed. Turning the check on with no
// address locks the API out (the spec), so the console asks for a second confirmation first.
import { parseCidr } from '../../domain/ip.ts';
import { addAllowedAddress, removeAllowedAddress, setAddressCheck } from '../../operations/account-access.ts';
import { runOperation } from '../../operations/execute.ts';
import { listAllowedIps } from '../../store/read-models.ts';
import { actionForm, csrfField, html, table } from './html.ts';
import { fmt } from './i18n.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

async function ipsPage(c: PageContext, o: { error?: string; confirmOn?: boolean; value?: string } = {}) {
  const { t, account } = c;
  const cidrs = await listAllowedIps(c.app.store.db, account.id);
  const on = !!account.ip_check;
  const state = html`<p>${on ? t.ipCheckOn : t.ipCheckOff}</p>`;
  const warnNone = on && cidrs.length === 0 ? html`<p class="warn" role="alert">${t.ipOnWithNone}</p>` : '';
  const toggle = o.confirmOn
    ? html`<div class="warn" role="alert"><p>${t.ipConfirmOnNone}</p>${actionForm('/console/ips/check', c.session.csrf, t.ipTurnOnAnyway, { on: '1', confirm: '1' }, { danger: true })}
<a href="/console/ips">${t.cancelAction}</a></div>`
    : actionForm('/console/ips/check', c.session.csrf, on ? t.ipTurnOff : t.ipTurnOn, { on: on ? '0' : '1' });
  const rows = cidrs.map((cidr) => [
    html`<code>${cidr}</code>`,
    actionForm(
      '/console/ips/remove',
      c.session.csrf,
      t.delete,
      { cidr },
      { confirm: fmt(t.ipRemoveConfirm, { cidr }), danger: true },
    ),
  ]);
  const add = html`<form method="post" action="/console/ips/add" class="card">${csrfField(c.session.csrf)}
<label for="cidr">${t.ipAddLabel}</label><input id="cidr" name="cidr" required maxlength="60" value="${o.value ?? ''}" aria-describedby="cidr-hint">
<p id="cidr-hint" class="muted">${fmt(t.ipHint, { ip: c.request.ip })}</p><button type="submit">${t.add}</button></form>`;
  return c.render(
    t.navIps,
    html`${state}${warnNone}${toggle}<h2>${t.ipList}</h2>${table(t.ipList, [t.ipAddress, t.actions], rows, t.ipNone)}${add}`,
    { notice: o.error ? { kind: 'error', text: o.error } : undefined },
  );
}

export function registerIps(r: ConsoleRouter): void {
  r.get('/console/ips', (c) => ipsPage(c));

  r.post('/console/ips/add', async (c) => {
    const value = (c.form.get('cidr') ?? '').trim();
    const cidr = parseCidr(value);
    if (!cidr)
      return ipsPage(c, { error: fmt(c.t.ipInvalid, { value: value.slice(0, 60) }), value: value.slice(0, 60) });
    const added = await runOperation(c.app, c.account, addAllowedAddress, { cidr });
    return c.redirect('/console/ips', added.done ? { ok: 'ipAdded' } : { error: 'ipAlready' });
  });

  r.post('/console/ips/remove', async (c) => {
    const removed = await runOperation(c.app, c.account, removeAllowedAddress, { cidr: c.form.get('cidr') ?? '' });
    return c.redirect('/console/ips', removed.done ? { ok: 'ipRemoved' } : { error: 'ipUnknown' });
  });

  r.post('/console/ips/check', async (c) => {
    const on = c.form.get('on') === '1';
    if (on && c.form.get('confirm') !== '1' && (await listAllowedIps(c.app.store.db, c.account.id)).length === 0) {
      return ipsPage(c, { confirmOn: true });
    }
    const set = await runOperation(c.app, c.account, setAddressCheck, { on });
    if (set.status !== 0) return ipsPage(c, { error: set.message });
    return c.redirect('/console/ips', { ok: on ? 'ipTurnedOn' : 'ipTurnedOff' });
  });
}

// /admin/prices: the international rate card (agorot a part per destination country, and the default for the
// rest: YONA_INTL_PRICE_AGOROT until one is set) and the accounts with prices of their own (credits a domestic
// part, agorot an international part), changed through the same operations as `yona admin price`.
import { countryCode, partPrice } from '../../domain/rate-card.ts';
import { runForOperator } from '../../operations/execute.ts';
import { setAccountPrice, setCountryPrice, setDefaultPrice } from '../../operations/prices.ts';
import { listAccountPrices, readRateCard } from '../../store/read-models.ts';
import { actionForm, csrfField, html, table, type HtmlValue } from '../console/html.ts';
import { fmt } from '../console/i18n.ts';
import type { AdminContext, AdminRouter, Notice } from './router.ts';

/** A price field of a form: empty is none (null), else a whole number; undefined when it is neither. */
function priceField(text: string | null): number | null | undefined {
  const v = (text ?? '').trim();
  return v === '' ? null : partPrice(v);
}

async function pricesPage(c: AdminContext, notice?: Notice) {
  const { w } = c;
  const csrf = c.session.csrf;
  const card = await readRateCard(c.app.store.db);
  const configured = c.app.config.sending.intlPriceAgorot;
  const countries = [...card.countries].sort(([a], [b]) => a.localeCompare(b));
  const countryRows = countries.map(([cc, agorot]): HtmlValue[] => [
    cc,
    String(agorot),
    actionForm('/admin/prices/country', csrf, w.priceRemove, { country: cc, agorot: '' }),
  ]);
  const accounts = (await listAccountPrices(c.app.store.db)).map((a): HtmlValue[] => [
    a.username,
    a.domesticCredits === null ? '-' : String(a.domesticCredits),
    a.intlAgorot === null ? '-' : String(a.intlAgorot),
  ]);
  const defaultText =
    card.defaultAgorot === null
      ? fmt(w.priceDefaultConfigured, { agorot: configured })
      : fmt(w.priceDefaultSet, { agorot: card.defaultAgorot });
  const body = html`<p>${defaultText}</p>
<form method="post" action="/admin/prices/default" class="card">${csrfField(csrf)}<label for="price-default">${w.priceDefaultLabel}</label><input id="price-default" name="agorot" inputmode="numeric" pattern="[0-9]*" maxlength="7" value="${card.defaultAgorot === null ? '' : String(card.defaultAgorot)}" aria-describedby="price-default-hint"><p id="price-default-hint" class="muted">${w.priceEmptyHint}</p><button type="submit">${w.priceSave}</button></form>
<h2>${w.priceCountriesTitle}</h2>${table(w.priceCountriesTitle, [w.priceCountry, w.priceAgorot, w.priceActions], countryRows, w.priceCountriesNone)}
<form method="post" action="/admin/prices/country" class="card">${csrfField(csrf)}<label for="price-cc">${w.priceCountry}</label><input id="price-cc" name="country" required maxlength="2" pattern="[A-Za-z]{2}" aria-describedby="price-cc-hint"><p id="price-cc-hint" class="muted">${w.priceCountryHint}</p>
<label for="price-cc-agorot">${w.priceAgorot}</label><input id="price-cc-agorot" name="agorot" required inputmode="numeric" pattern="[0-9]*" maxlength="7"><button type="submit">${w.priceSave}</button></form>
<h2>${w.priceAccountsTitle}</h2>${table(w.priceAccountsTitle, [w.priceAccount, w.priceDomestic, w.priceInternational], accounts, w.priceAccountsNone)}
<form method="post" action="/admin/prices/account" class="card">${csrfField(csrf)}<label for="price-account">${w.priceAccount}</label><input id="price-account" name="username" required maxlength="64">
<label for="price-domestic">${w.priceDomestic}</label><input id="price-domestic" name="domestic" inputmode="numeric" pattern="[0-9]*" maxlength="7" aria-describedby="price-account-hint">
<label for="price-international">${w.priceInternational}</label><input id="price-international" name="international" inputmode="numeric" pattern="[0-9]*" maxlength="7" aria-describedby="price-account-hint"><p id="price-account-hint" class="muted">${w.priceEmptyHint}</p><button type="submit">${w.priceSave}</button></form>`;
  return c.render(w.navPrices, body, { notice });
}

const invalid = (c: AdminContext) => pricesPage(c, { kind: 'error', text: c.w.priceInvalid });

export function registerAdminPrices(r: AdminRouter): void {
  r.get('/admin/prices', (c) => pricesPage(c));

  r.post('/admin/prices/default', async (c) => {
    const agorot = priceField(c.form.get('agorot'));
    if (agorot === undefined) return invalid(c);
    const reply = await runForOperator(c.app, setDefaultPrice, { agorot });
    if (reply.status !== 0) return pricesPage(c, { kind: 'error', text: reply.message });
    return c.redirect('/admin/prices', { ok: 'priceSaved' });
  });

  r.post('/admin/prices/country', async (c) => {
    const country = countryCode((c.form.get('country') ?? '').trim());
    const agorot = priceField(c.form.get('agorot'));
    if (!country || agorot === undefined) return invalid(c);
    const reply = await runForOperator(c.app, setCountryPrice, { country, agorot });
    if (reply.status !== 0) return pricesPage(c, { kind: 'error', text: reply.message });
    return c.redirect('/admin/prices', { ok: 'priceSaved' });
  });

  r.post('/admin/prices/account', async (c) => {
    const domestic = priceField(c.form.get('domestic'));
    const international = priceField(c.form.get('international'));
    if (domestic === undefined || international === undefined) return invalid(c);
    const username = (c.form.get('username') ?? '').trim().slice(0, 64);
    const reply = await runForOperator(c.app, setAccountPrice, { username, domestic, international });
    if (reply.status !== 0) return pricesPage(c, { kind: 'error', text: reply.message });
    return c.redirect('/admin/prices', { ok: 'priceSaved' });
  });
}

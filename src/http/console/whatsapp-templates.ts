// The account's WhatsApp templates at /console/whatsapp/templates: for each business number the operator granted
// it, the templates its carrier's provider lists (as last synced), with their status (only APPROVED ones are sent),
// category, language, how many variables they take and their text.
import { toNational } from '../../domain/phone.ts';
import { listWhatsappNumbers, templatesOfNumber } from '../../store/read-models.ts';
import { html, table, type HtmlValue, userText } from './html.ts';
import { fmt } from './i18n.ts';
import type { ConsoleRouter, PageContext } from './router.ts';

async function templatesPage(c: PageContext) {
  const { t } = c;
  const db = c.app.store.db;
  const numbers = await listWhatsappNumbers(db, Number(c.account.id));
  const headers = [t.waTplName, t.waTplLanguage, t.waTplCategory, t.waTplStatus, t.waTplVariables, t.waTplBody];
  const sections = await Promise.all(
    numbers.map(async (n) => {
      const templates = await templatesOfNumber(db, n.businessNumber, n.carrier);
      const rows = templates.map((x): HtmlValue[] => [
        html`<span class="nowrap">${x.name}</span>`,
        x.language,
        x.category,
        html`<span class="${x.status.toUpperCase() === 'APPROVED' ? 'status-delivered' : 'status-pending'}">${x.status}</span>`,
        html`<span class="num">${String(Number(x.variables))}</span>`,
        userText(x.body, 'span', html` class="text"`),
      ]);
      const caption = fmt(t.waTemplatesOf, { business: toNational(n.businessNumber) });
      return html`<section><h2>${caption}</h2>${table(caption, headers, rows, t.waTemplatesNone)}</section>`;
    }),
  );
  const body = html`<p class="muted">${t.waTemplatesIntro}</p>${
    numbers.length === 0 ? html`<p class="empty">${t.waNoNumbers}</p>` : sections
  }`;
  return c.render(t.waTemplatesTitle, body);
}

export function registerWhatsappTemplates(r: ConsoleRouter): void {
  r.get('/console/whatsapp/templates', (c) => templatesPage(c));
}

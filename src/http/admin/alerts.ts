// /admin/alerts: the alerts open now, the thresholds per kind (set, change or turn off), the operator's webhook
// and the latest alerts, through the same operations as `yona admin alerts`. `alertsSection` is the list of
// active alerts the overview (/admin) shows.
import type { AlertKind, AlertRule } from '../../domain/alerts.ts';
import { ALERT_KINDS } from '../../domain/alerts.ts';
import { removeAlertRule, setAlertRule, setAlertWebhook } from '../../operations/alerts.ts';
import { activeAlerts, alertWebhook, listAlertRules, recentAlerts, type AlertRecord } from '../../store/read-models.ts';
import { when } from '../console/format.ts';
import { actionForm, csrfField, html, table, type Html, type HtmlValue } from '../console/html.ts';
import { fmt } from '../console/i18n.ts';
import { actAsOperator } from './act.ts';
import type { AdminWords } from './i18n.ts';
import type { AdminContext, AdminRouter } from './router.ts';

const KIND_WORD: Record<AlertKind, keyof AdminWords> = {
  'delivery-rate': 'alertKindDeliveryRate',
  'carrier-down': 'alertKindCarrierDown',
  'queue-age': 'alertKindQueueAge',
  'push-disabled': 'alertKindPushDisabled',
};

function kindName(w: AdminWords, kind: string): string {
  return kind in KIND_WORD ? w[KIND_WORD[kind as AlertKind]] : kind;
}

function ruleName(w: AdminWords, r: AlertRule | undefined): string {
  if (!r) return w.alertRuleNone;
  const v = { percent: r.percent ?? 0, minutes: r.minutes };
  switch (r.kind) {
    case 'delivery-rate':
      return fmt(w.alertRuleDeliveryRate, v);
    case 'carrier-down':
      return fmt(w.alertRuleCarrierDown, v);
    case 'queue-age':
      return fmt(w.alertRuleQueueAge, v);
    case 'push-disabled':
      return w.alertRulePushDisabled;
  }
}

function alertRows(c: AdminContext, alerts: AlertRecord[], withCleared: boolean): HtmlValue[][] {
  const zone = c.app.config.defaultTimeZone;
  return alerts.map((a) => {
    const row: HtmlValue[] = [
      kindName(c.w, a.kind),
      a.subject,
      String(a.value),
      String(a.threshold),
      when(a.raisedAt, zone),
    ];
    if (withCleared) row.push(a.clearedAt === null ? c.w.alertOpen : when(a.clearedAt, zone));
    return row;
  });
}

/** The active alerts as a section of a page (/admin and /admin/alerts). */
export async function alertsSection(c: AdminContext): Promise<Html> {
  const { w } = c;
  const rows = alertRows(c, await activeAlerts(c.app.store.db), false);
  return html`<section class="card" aria-labelledby="alerts-active"><h2 id="alerts-active">${w.alertsActiveTitle}</h2>${table(
    w.alertsActiveTitle,
    [w.alertKind, w.alertSubject, w.alertValue, w.alertThreshold, w.alertRaisedAt],
    rows,
    w.alertsNoneActive,
  )}</section>`;
}

function ruleForm(c: AdminContext, kind: AlertKind, rule: AlertRule | undefined): Html {
  const { w } = c;
  const csrf = c.session.csrf;
  const id = `alert-${kind}`;
  const minutes = html`<label for="${id}-minutes">${w.alertMinutes}</label><input id="${id}-minutes" name="minutes" required inputmode="numeric" pattern="[0-9]*" maxlength="5" value="${rule ? String(rule.minutes) : ''}">`;
  const percent =
    kind === 'delivery-rate'
      ? html`<label for="${id}-percent">${w.alertPercent}</label><input id="${id}-percent" name="percent" required inputmode="decimal" pattern="[0-9]+(\\.[0-9]+)?" maxlength="5" value="${rule?.percent === null || rule === undefined ? '' : String(rule.percent)}">`
      : '';
  const fields = kind === 'push-disabled' ? '' : html`${percent}${minutes}`;
  const remove = rule ? actionForm('/admin/alerts/remove', csrf, w.alertRemove, { kind }) : '';
  return html`<form method="post" action="/admin/alerts/set" class="card"><h3>${kindName(w, kind)}</h3><p>${w.alertRule}: ${ruleName(w, rule)}</p>${csrfField(csrf)}<input type="hidden" name="kind" value="${kind}">${fields}<button type="submit">${kind === 'push-disabled' ? w.alertTurnOn : w.alertSave}</button></form>${remove}`;
}

async function alertsPage(c: AdminContext) {
  const { w } = c;
  const db = c.app.store.db;
  const admin = c.operator.role === 'admin';
  const rules = await listAlertRules(db);
  const hook = await alertWebhook(db);
  const ruleRows = ALERT_KINDS.map((k): HtmlValue[] => [
    kindName(w, k),
    ruleName(
      w,
      rules.find((r) => r.kind === k),
    ),
  ]);
  const forms = admin
    ? ALERT_KINDS.map((k) =>
        ruleForm(
          c,
          k,
          rules.find((r) => r.kind === k),
        ),
      )
    : [];
  const webhookForm = admin
    ? html`<form method="post" action="/admin/alerts/webhook" class="card">${csrfField(c.session.csrf)}<label for="alert-webhook-url">${w.alertWebhookUrl}</label><input id="alert-webhook-url" name="url" type="url" maxlength="2000" dir="ltr" value="${hook?.url ?? ''}">
<label for="alert-webhook-secret">${w.alertWebhookSecret}</label><input id="alert-webhook-secret" name="secret" type="password" autocomplete="new-password" minlength="16" maxlength="200" dir="ltr"><button type="submit">${w.alertSave}</button></form>`
    : '';
  const recent = table(
    w.alertsRecentTitle,
    [w.alertKind, w.alertSubject, w.alertValue, w.alertThreshold, w.alertRaisedAt, w.alertClearedAt],
    alertRows(c, await recentAlerts(db), true),
    w.alertsNoneRecent,
  );
  const body = html`${await alertsSection(c)}
<h2>${w.alertsRulesTitle}</h2><p>${fmt(w.alertsLeader, { seconds: Math.round(c.app.config.alerts.intervalMs / 100) / 10 })}</p>${table(w.alertsRulesTitle, [w.alertKind, w.alertRule], ruleRows, '')}
${forms}
<h2>${w.alertWebhookTitle}</h2><p>${hook ? fmt(w.alertWebhookIs, { url: hook.url }) : w.alertWebhookNone}</p>${webhookForm}
<h2>${w.alertsRecentTitle}</h2>${recent}`;
  return c.render(w.navAlerts, body);
}

/** A number field of a form; undefined when empty. */
function numberField(text: string | null): number | undefined {
  const v = (text ?? '').trim();
  return v === '' ? undefined : Number(v);
}

export function registerAdminAlerts(r: AdminRouter): void {
  r.get('/admin/alerts', (c) => alertsPage(c));

  r.post('/admin/alerts/set', async (c) => {
    const doc: Record<string, unknown> = { kind: c.form.get('kind') ?? '' };
    const percent = numberField(c.form.get('percent'));
    const minutes = numberField(c.form.get('minutes'));
    if (percent !== undefined) doc.percent = percent;
    if (minutes !== undefined) doc.minutes = minutes;
    return actAsOperator(c, setAlertRule, doc, '/admin/alerts');
  });

  r.post('/admin/alerts/remove', (c) =>
    actAsOperator(c, removeAlertRule, { kind: c.form.get('kind') ?? '' }, '/admin/alerts'),
  );

  r.post('/admin/alerts/webhook', (c) => {
    const url = (c.form.get('url') ?? '').trim();
    return actAsOperator(
      c,
      setAlertWebhook,
      url === '' ? { url: null } : { url, secret: c.form.get('secret') ?? '' },
      '/admin/alerts',
    );
  });
}

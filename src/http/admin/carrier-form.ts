// The operator console's add-carrier form: a choice of protocol, each with its own fields (the options of
// `yona admin add-carrier` for that protocol, from the protocol itself), or a JSON document for a protocol without
// options. Only the chosen protocol's fields show (console.css, no script), and only they are read back.
import { ConfigError } from '../../domain/errors.ts';
import {
  carrierFormProtocols,
  carrierLimitFields,
  carrierSettingsFromOptions,
  type CarrierFormField,
} from '../../operations/carrier-forms.ts';
import { csrfField, html, type Html } from '../console/html.ts';
import { fmt } from '../console/i18n.ts';
import type { AdminContext } from './router.ts';

const fieldId = (prefix: string, option: string) => `carrier-${prefix}-${option}`;
/** The prefix of the limits' fields, which every protocol takes. */
const LIMITS = 'limits';

/** One option's input, named `PREFIX.OPTION`. */
function fieldInput(c: AdminContext, prefix: string, f: CarrierFormField): Html {
  const { w } = c;
  const id = fieldId(prefix, f.option);
  const name = `${prefix}.${f.option}`;
  if (f.flag)
    return html`<div class="check"><input type="checkbox" id="${id}" name="${name}" value="1"><label for="${id}" dir="ltr">--${f.option}</label></div>`;
  if (f.choices)
    return html`<div><label for="${id}" dir="ltr">--${f.option}</label><select id="${id}" name="${name}" dir="ltr"><option value="">${w.protocolDefault}</option>${f.choices.map((v) => html`<option>${v}</option>`)}</select></div>`;
  return html`<div><label for="${id}"><span dir="ltr">--${f.option}</span>${f.required ? html` <span class="muted">(${w.requiredField})</span>` : ''}</label><input id="${id}" name="${name}" type="${f.secret ? 'password' : 'text'}" maxlength="400" dir="ltr" autocomplete="off"></div>`;
}

/** The form, the first protocol (smpp) chosen. */
export function carrierForm(c: AdminContext): Html {
  const { w } = c;
  const choices = carrierFormProtocols().map(({ protocol, fields }, i) => {
    const inputs = fields
      ? fields.map((f) => fieldInput(c, protocol, f))
      : html`<div><label for="${fieldId(protocol, 'settings')}">${w.carrierSettings}</label><textarea id="${fieldId(protocol, 'settings')}" name="${protocol}.settings" rows="5" maxlength="4000" dir="ltr">{}</textarea></div>`;
    return html`<input type="radio" id="carrier-protocol-${protocol}" name="protocol" value="${protocol}"${i === 0 ? ' checked' : ''}><label for="carrier-protocol-${protocol}" dir="ltr">${protocol}</label>
<fieldset><legend>${fmt(w.carrierSettingsOf, { protocol })}</legend>${inputs}</fieldset>`;
  });
  return html`<form method="post" action="/admin/carriers/add" class="card"><h2>${w.addCarrier}</h2>${csrfField(c.session.csrf)}
<label for="carrier-name">${w.carrier}</label><input id="carrier-name" name="name" required maxlength="40" dir="ltr">
<fieldset class="protocol-choice"><legend>${w.protocol}</legend>${choices}</fieldset>
<fieldset><legend>${w.carrierLimits}</legend>${carrierLimitFields().map((f) => fieldInput(c, LIMITS, f))}</fieldset>
<p class="muted">${w.carrierFormHint}</p>
<button type="submit">${w.save}</button></form>`;
}

/** The carrier a posted form describes: its name, protocol and settings document, or why they cannot be read. */
export function postedCarrier(
  form: URLSearchParams,
): { name: string; protocol: string; settings: unknown } | { problem: string } {
  const name = (form.get('name') ?? '').trim();
  const protocol = (form.get('protocol') ?? '').trim();
  const described = carrierFormProtocols().find((p) => p.protocol === protocol);
  if (!described) return { name, protocol, settings: {} }; // refused by the operation, naming the known protocols
  const values: Record<string, string | boolean | undefined> = {};
  const read = (prefix: string, fields: CarrierFormField[]) => {
    for (const f of fields) {
      const value = form.get(`${prefix}.${f.option}`)?.trim();
      values[f.option] = f.flag ? value === '1' : value === '' ? undefined : value;
    }
  };
  read(LIMITS, carrierLimitFields());
  let document: Record<string, unknown> | undefined;
  if (described.fields) read(protocol, described.fields);
  else {
    try {
      document = JSON.parse(form.get(`${protocol}.settings`) || '{}');
    } catch {
      document = undefined;
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document))
      return { problem: `the settings of ${protocol} are not a JSON object` };
  }
  try {
    return { name, protocol, settings: carrierSettingsFromOptions(protocol, values, document) };
  } catch (err) {
    if (err instanceof ConfigError) return { problem: err.message };
    throw err;
  }
}

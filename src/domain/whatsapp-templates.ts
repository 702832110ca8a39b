// WhatsApp message templates as Yona reads them: the variables a template takes (`{{1}}`, `{{2}}`... in its
// components), its text filled with a send's variables (what an SMS fallback reads), the checks a send's variables
// pass before anything is sent.

/** A template's component as the provider lists it (Graph API message_templates). */
export interface TemplateComponent {
  type: string;
  format?: string;
  text?: string;
  buttons?: Array<{ type: string; text?: string; url?: string; phone_number?: string }>;
}

const PLACEHOLDER = /\{\{\s*(\d+)\s*\}\}/g;

/** The number of variables a text takes: its highest placeholder number (`{{1}}`..`{{n}}`). */
export function variablesIn(text: string): number {
  let highest = 0;
  for (const m of text.matchAll(PLACEHOLDER)) highest = Math.max(highest, Number(m[1]));
  return highest;
}

/** The variables of the body component, which the send fills (header and button variables are not sent). */
export function bodyOf(components: readonly TemplateComponent[]): string {
  return components.find((c) => c.type.toUpperCase() === 'BODY')?.text ?? '';
}

/** A template's text with its variables in place (a missing one left as its placeholder). */
export function fillTemplate(text: string, variables: readonly string[]): string {
  return text.replace(PLACEHOLDER, (whole, n: string) => variables[Number(n) - 1] ?? whole);
}

/** Why a send's variables cannot fill a template, or undefined when they can. */
export type VariablesProblem =
  | { kind: 'count'; expected: number; given: number }
  | { kind: 'line-break'; variable: number }
  | { kind: 'empty'; variable: number };

/**
 * The variables of a send as the template's positions (`{"1": "...", "2": "..."}` or a list), checked against the
 * number it takes: exactly that many, numbered 1..n, none empty and none with a line break (the provider refuses
 * them).
 */
export function checkVariables(
  given: Readonly<Record<string, string>> | readonly string[],
  expected: number,
): { ok: true; values: string[] } | { ok: false; problem: VariablesProblem } {
  const entries = Array.isArray(given)
    ? given.map((v, i) => [String(i + 1), v] as const)
    : Object.entries(given as Record<string, string>);
  const values: string[] = [];
  for (const [key, value] of entries) {
    const n = Number(key);
    if (!Number.isInteger(n) || n < 1 || n > expected)
      return { ok: false, problem: { kind: 'count', expected, given: entries.length } };
    values[n - 1] = value;
  }
  if (entries.length !== expected || values.filter((v) => v !== undefined).length !== expected)
    return { ok: false, problem: { kind: 'count', expected, given: entries.length } };
  for (let i = 0; i < values.length; i++) {
    if (values[i].trim() === '') return { ok: false, problem: { kind: 'empty', variable: i + 1 } };
    if (/[\r\n]/.test(values[i])) return { ok: false, problem: { kind: 'line-break', variable: i + 1 } };
  }
  return { ok: true, values };
}

/** A template as 019's `get-phone-templates` lists it: every value a string but `status`. */
export interface WireTemplate {
  name: string;
  templateId: string;
  language: string;
  headerSample: string;
  body: string;
  footer: string;
  /** '1' none, '2' call to action, '3' quick reply, '4' both. */
  buttons: string;
  /** '0' none, '1' website, '2' call, '3' both. */
  callToAction: string;
  callToActionWebsiteText: string;
  /** '1' a static URL, '2' a dynamic one (one variable appended); '' without a website button. */
  callToActionWebsiteType: string;
  callToActionWebsiteURL: string;
  callToActionCallText: string;
  callToActionCallNumber: string;
  quickReply1: string;
  quickReply2: string;
  quickReply3: string;
  /** '1' when the template has a header, '0' otherwise. */
  headers: string;
  /** 0 approved, 1 pending, 2 rejected, 3 paused or disabled, 4 any other state. */
  status: number;
}

const WIRE_STATUS: Readonly<Record<string, number>> = {
  APPROVED: 0,
  PENDING: 1,
  IN_APPEAL: 1,
  REJECTED: 2,
  PAUSED: 3,
  DISABLED: 3,
};

/** The status number 019's listing gives a provider status. */
export function wireStatus(status: string): number {
  return WIRE_STATUS[status.toUpperCase()] ?? 4;
}

/** A template in 019's listing shape, from its provider's components. */
export function wireTemplate(t: {
  name: string;
  language: string;
  status: string;
  components: readonly TemplateComponent[];
}): WireTemplate {
  const header = t.components.find((c) => c.type.toUpperCase() === 'HEADER');
  const footer = t.components.find((c) => c.type.toUpperCase() === 'FOOTER');
  const buttons = t.components.find((c) => c.type.toUpperCase() === 'BUTTONS')?.buttons ?? [];
  const website = buttons.find((b) => b.type.toUpperCase() === 'URL');
  const call = buttons.find((b) => b.type.toUpperCase() === 'PHONE_NUMBER');
  const quick = buttons.filter((b) => b.type.toUpperCase() === 'QUICK_REPLY');
  const cta = (website ? 1 : 0) + (call ? 2 : 0);
  const kinds = (cta > 0 ? 1 : 0) + (quick.length > 0 ? 2 : 0);
  return {
    name: t.name,
    templateId: t.name,
    language: t.language,
    headerSample: header?.text ?? '',
    body: bodyOf(t.components),
    footer: footer?.text ?? '',
    buttons: String(kinds + 1),
    callToAction: String(cta),
    callToActionWebsiteText: website?.text ?? '',
    callToActionWebsiteType: website ? (variablesIn(website.url ?? '') > 0 ? '2' : '1') : '',
    callToActionWebsiteURL: website?.url ?? '',
    callToActionCallText: call?.text ?? '',
    callToActionCallNumber: call?.phone_number ?? '',
    quickReply1: quick[0]?.text ?? '',
    quickReply2: quick[1]?.text ?? '',
    quickReply3: quick[2]?.text ?? '',
    headers: header ? '1' : '0',
    status: wireStatus(t.status),
  };
}

// The message templates the Cloud API simulator holds, as a WhatsApp Business Account's template library: the ones
// it ships (two approved, one still pending review) and any added through its control channel. Listed in the
// shape of Graph's GET /{waba-id}/message_templates; a send names one by name and language and fills its
// positional placeholders ({{1}}, {{2}}, ...) in order.

/** What a template's review says: only APPROVED ones can be sent. */
export type TemplateStatus = 'APPROVED' | 'PENDING' | 'REJECTED' | 'PAUSED' | 'DISABLED';

/** A template's pricing category, as Meta names them. */
export type TemplateCategory = 'MARKETING' | 'UTILITY' | 'AUTHENTICATION';

/** One template in one language. */
export interface SimulatedTemplate {
  id: string;
  name: string;
  language: string;
  category: TemplateCategory;
  status: TemplateStatus;
  header?: string;
  body: string;
  footer?: string;
}

/** The templates every simulator starts with: two approved (one with {{1}}) and one not approved. */
export const SHIPPED_TEMPLATES: readonly SimulatedTemplate[] = [
  {
    id: '990000000000001',
    name: 'hello_world',
    language: 'en_US',
    category: 'UTILITY',
    status: 'APPROVED',
    header: 'Hello from Yona',
    body: 'Welcome! This WhatsApp message was sent through the Yona Cloud API simulator.',
    footer: 'Yona simulator',
  },
  {
    id: '990000000000002',
    name: 'order_update',
    language: 'en',
    category: 'UTILITY',
    status: 'APPROVED',
    body: 'Your order {{1}} is on its way.',
  },
  {
    id: '990000000000003',
    name: 'spring_sale',
    language: 'en',
    category: 'MARKETING',
    status: 'PENDING',
    body: 'Spring sale: {{1}}% off everything until {{2}}.',
  },
];

/** How many positional placeholders a template's body has ({{1}}..{{n}}: the highest number). */
export function placeholderCount(body: string): number {
  let highest = 0;
  for (const m of body.matchAll(/\{\{(\d+)\}\}/g)) highest = Math.max(highest, Number(m[1]));
  return highest;
}

/** The body with its placeholders filled in order (a missing value leaves its placeholder as it was). */
export function renderTemplate(body: string, variables: readonly string[]): string {
  return body.replace(/\{\{(\d+)\}\}/g, (whole, n: string) => variables[Number(n) - 1] ?? whole);
}

/** Example values for a template's placeholders, as Meta shows them beside a body. */
function exampleValues(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `example ${i + 1}`);
}

/** A template as Graph lists it: name, language, status, category, id and its components. */
export function templateAsGraph(t: SimulatedTemplate): Record<string, unknown> {
  const count = placeholderCount(t.body);
  const components: Record<string, unknown>[] = [];
  if (t.header) components.push({ type: 'HEADER', format: 'TEXT', text: t.header });
  components.push({
    type: 'BODY',
    text: t.body,
    ...(count > 0 ? { example: { body_text: [exampleValues(count)] } } : {}),
  });
  if (t.footer) components.push({ type: 'FOOTER', text: t.footer });
  return {
    name: t.name,
    parameter_format: 'POSITIONAL',
    components,
    language: t.language,
    status: t.status,
    category: t.category,
    id: t.id,
  };
}

/** The library: the shipped templates and those added since, by name and language. */
export class TemplateLibrary {
  private readonly templates: SimulatedTemplate[] = SHIPPED_TEMPLATES.map((t) => ({ ...t }));
  private nextId = 990000000000100;

  list(): SimulatedTemplate[] {
    return [...this.templates];
  }

  find(name: string, language: string): SimulatedTemplate | undefined {
    return this.templates.find((t) => t.name === name && t.language === language);
  }

  /** Adds a template, or replaces the one of that name and language; answers it with its id. */
  put(template: Omit<SimulatedTemplate, 'id'> & { id?: string }): SimulatedTemplate {
    const existing = this.templates.findIndex((t) => t.name === template.name && t.language === template.language);
    const stored = { ...template, id: template.id ?? String(this.nextId++) };
    if (existing >= 0) this.templates[existing] = stored;
    else this.templates.push(stored);
    return stored;
  }
}

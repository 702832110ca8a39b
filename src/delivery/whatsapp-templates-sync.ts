// The WhatsApp carriers' templates, synced from their provider: GET {graph}/{version}/{waba_id}/message_templates
// (following `paging.next`) with the carrier's token, each template read into its category, status, body and
// number of variables, and the carrier's rows replaced whole (store/whatsapp-templates.ts).
import type { CarrierConfigBase } from '../carriers/types.ts';
import { bodyOf, variablesIn, type TemplateComponent } from '../domain/whatsapp-templates.ts';
import type { NewWhatsappTemplate } from '../store/whatsapp-templates.ts';

/** Where a WhatsApp carrier's templates are listed, read from its settings. */
export interface TemplateSource {
  carrier: string;
  /** The business number it sends from ('*': any). */
  businessNumber: string;
  graphUrl: string;
  version: string;
  wabaId: string;
  token: string;
}

const DEFAULT_GRAPH_URL = 'https://graph.facebook.com';
const DEFAULT_VERSION = 'v21.0';
const MAX_PAGES = 50;

function setting(config: CarrierConfigBase, ...names: string[]): string | undefined {
  for (const name of names) {
    const v = config[name];
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number') return String(v);
  }
  return undefined;
}

/** The template source of a WhatsApp carrier's settings, or undefined when they name no business account. */
export function templateSourceOf(config: CarrierConfigBase): TemplateSource | undefined {
  const wabaId = setting(config, 'wabaId');
  const token = setting(config, 'token', 'accessToken');
  if (!wabaId || !token) return undefined;
  return {
    carrier: config.name,
    businessNumber: config.anyBusinessNumber === true ? '*' : (setting(config, 'businessNumber') ?? '*'),
    graphUrl: (setting(config, 'graphUrl') ?? DEFAULT_GRAPH_URL).replace(/\/+$/, ''),
    version: setting(config, 'graphVersion', 'apiVersion', 'version') ?? DEFAULT_VERSION,
    wabaId,
    token,
  };
}

interface ListedTemplate {
  name?: unknown;
  language?: unknown;
  status?: unknown;
  category?: unknown;
  components?: unknown;
}

/** One listed template as stored. */
export function storedTemplate(t: ListedTemplate): NewWhatsappTemplate | undefined {
  if (typeof t.name !== 'string' || typeof t.language !== 'string') return undefined;
  const components = (Array.isArray(t.components) ? t.components : []) as TemplateComponent[];
  const body = bodyOf(components);
  return {
    name: t.name,
    language: t.language,
    status: typeof t.status === 'string' ? t.status : 'UNKNOWN',
    category: typeof t.category === 'string' ? t.category : 'MARKETING',
    body,
    // The body's variables are what a send fills.
    variables: variablesIn(body),
    components: JSON.stringify(components),
  };
}

/** Every template the provider lists for the source's business account. */
export async function fetchTemplates(source: TemplateSource, timeoutMs = 10_000): Promise<NewWhatsappTemplate[]> {
  const out: NewWhatsappTemplate[] = [];
  let url: string | undefined = `${source.graphUrl}/${source.version}/${source.wabaId}/message_templates?limit=250`;
  for (let page = 0; url && page < MAX_PAGES; page++) {
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${source.token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`message_templates answered HTTP ${res.status}`);
    const body = (await res.json()) as { data?: ListedTemplate[]; paging?: { next?: string } };
    for (const t of body.data ?? []) {
      const stored = storedTemplate(t);
      if (stored) out.push(stored);
    }
    // Meta gives the next page as a full address; one relative to this page is taken too.
    url = body.paging?.next ? new URL(body.paging.next, url).href : undefined;
  }
  return out;
}

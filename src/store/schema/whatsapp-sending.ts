// Tables of WhatsApp sending: the rate card by category, the carriers' templates as their provider lists them,
// and the SMS fallbacks waiting on WhatsApp messages.

export interface WhatsappPriceTable {
  /** 'marketing', 'utility', 'authentication' or 'service' (domain/whatsapp-pricing.ts). */
  category: string;
  /** Credits one message of the category costs. */
  credits: number;
  updated_at: number;
}

export interface WhatsappTemplateTable {
  /** The WhatsApp carrier (one business number) whose business account holds it. */
  carrier: string;
  /** The business number the carrier sends from ('*': any, the bundled simulator). */
  business_number: string;
  name: string;
  /** The provider's language code ('en_US', 'he'). */
  language: string;
  /** 'MARKETING', 'UTILITY' or 'AUTHENTICATION', as the provider says. */
  category: string;
  /** 'APPROVED', 'PENDING', 'REJECTED', 'PAUSED', ... as the provider says; only APPROVED ones are sent. */
  status: string;
  /** The body component's text, with its `{{1}}`... placeholders. */
  body: string;
  /** How many variables the template takes (the highest placeholder number of every component). */
  variables: number;
  /** JSON: the provider's components as listed. */
  components: string;
  synced_at: number;
}

/** A fallback's life: pending until it is due; then sent (its SMS written) or cancelled (WhatsApp delivered). */
export type FallbackState = 'pending' | 'sent' | 'cancelled';

export interface WhatsappFallbackTable {
  /** The WhatsApp message it stands behind. */
  message_id: number;
  account_id: number;
  /** The verified SMS sender the fallback goes out from. */
  source: string;
  /** The SMS's text: the message's text, or the template's text with its variables. */
  text: string;
  /** The secret the text's `[code]` stands for, sealed (a one-time code), as the WhatsApp message keeps it. */
  sealed: string | null;
  /** When it goes out unless WhatsApp delivered by then (sooner when the WhatsApp message fails). */
  due_at: number;
  lease_until: number;
  state: FallbackState;
  /** The SMS message it wrote, once sent. */
  sms_message_id: number | null;
  created_at: number;
  settled_at: number | null;
}

export interface WhatsappSendingTables {
  whatsapp_prices: WhatsappPriceTable;
  whatsapp_templates: WhatsappTemplateTable;
  whatsapp_fallbacks: WhatsappFallbackTable;
}

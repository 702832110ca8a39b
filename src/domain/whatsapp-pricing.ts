// What a WhatsApp message costs: a price per category (marketing, utility, authentication, service), in credits,
// from the rate card the operator sets. A template is priced by its category as the provider lists it; a free-form
// message (inside the customer's 24-hour window) is a service message; a one-time code is authentication.

/** The categories of the rate card, in the order it is shown. */
export const WHATSAPP_CATEGORIES = ['marketing', 'utility', 'authentication', 'service'] as const;

export type WhatsappCategory = (typeof WHATSAPP_CATEGORIES)[number];

/** Whether `name` is a rate card category. */
export function isWhatsappCategory(name: string): name is WhatsappCategory {
  return (WHATSAPP_CATEGORIES as readonly string[]).includes(name);
}

/** The rate card's category of a template as the provider lists it ('MARKETING', ...); marketing when unknown. */
export function templateCategory(providerCategory: string): WhatsappCategory {
  const lower = providerCategory.toLowerCase();
  return isWhatsappCategory(lower) && lower !== 'service' ? lower : 'marketing';
}

/** The rate card: credits per category; a category the operator left unset costs `fallbackCredits`. */
export type RateCard = Readonly<Partial<Record<WhatsappCategory, number>>>;

/** The price of one message of `category`: the card's, else one credit (a message is never free unasked). */
export function whatsappCredits(card: RateCard, category: WhatsappCategory, free = false): number {
  if (free) return 0;
  return card[category] ?? DEFAULT_WHATSAPP_CREDITS;
}

/** What a message of a category the operator did not price costs. */
export const DEFAULT_WHATSAPP_CREDITS = 1;

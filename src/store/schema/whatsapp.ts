// WhatsApp tables (migration 0040): business numbers granted to accounts and the users' 24-hour windows.
import type { Generated } from 'kysely';

/** A business number an account may send from (`yona admin whatsapp-number add`). */
export interface WhatsappNumberTable {
  id: Generated<number>;
  account_id: number;
  /** International digits without '+', e.g. 972771234567; granted to one account at most. */
  business_number: string;
  /** The carrier its messages go through (null: the WhatsApp route's choice). */
  carrier: string | null;
  created_at: number;
}

/** A user's 24-hour customer service window with a business number, opened (and reset) by each of their messages. */
export interface WhatsappWindowTable {
  account_id: number;
  business_number: string;
  /** The user: their phone in international digits, or a business-scoped user id when Meta gave no phone. */
  user_id: string;
  last_inbound_at: number;
}

export interface WhatsappTables {
  whatsapp_numbers: WhatsappNumberTable;
  whatsapp_windows: WhatsappWindowTable;
}

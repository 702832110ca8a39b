// Tables of the audience issue: contact lists and their contacts, the blocklist, birthday campaigns.
import type { Generated } from 'kysely';

/** A named contact list of one account. */
export interface ContactListTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** Number of contacts, kept in step by every write in store/contacts.ts (getCL without counting). */
  contact_count: number;
  created_at: number;
  /** Last change to the list or its contacts (the birthday worker re-checks lists changed since its run). */
  updated_at: number;
}

/** One contact of a list (indexed by (list_id, id) and unique by (list_id, phone)). */
export interface ContactTable {
  id: Generated<number>;
  list_id: number;
  /** International form without '+', e.g. 972501234567; unique within a list. */
  phone: string;
  df1: string | null;
  df2: string | null;
  df3: string | null;
  df4: string | null;
  df5: string | null;
  df6: string | null;
  created_at: number;
}

/** A number the account has blocked; every row is a `blacklist` push event source. */
export interface BlocklistTable {
  id: Generated<number>;
  account_id: number;
  /** International form without '+'; unique per account. */
  phone: string;
  /** How it got here: 'api', 'unsubscribe-link', 'reply-stop', 'console', 'operator'. */
  source: string;
  created_at: number;
}

/** The log of unblocked numbers (rmNumBL and friends). */
export interface BlocklistRemovalTable {
  id: Generated<number>;
  account_id: number;
  phone: string;
  /** The caller's `reason` (rmNumBL), if any. */
  reason: string | null;
  /** Source of the removed entry and when it had been added. */
  source: string;
  blocked_at: number;
  removed_at: number;
}

/** A recurring greeting to a list's contacts on their birthday. */
export interface BirthdayCampaignTable {
  id: Generated<number>;
  account_id: number;
  list_id: number;
  name: string;
  message: string;
  source: string;
  /** Hour of the day (0-23, account time zone) from which the day's greetings go out. */
  hour: number;
  /** The contact field holding the date of birth: 'df1'..'df6'. */
  dob_field: string;
  active: number;
  created_at: number;
  updated_at: number;
  /** Local day (yyyymmdd) of the last complete run, and when it ran: lets the worker skip unchanged lists. */
  checked_day: number | null;
  checked_at: number | null;
}

/** A greeting sent: unique per campaign, contact and local year. */
export interface BirthdaySendTable {
  id: Generated<number>;
  campaign_id: number;
  contact_id: number;
  /** Local (account time zone) year of the greeting: at most one per contact, campaign and year. */
  year: number;
  phone: string;
  sent_at: number;
}

/** The audience tables, merged into the Database interface. */
export interface AudienceTables {
  contact_lists: ContactListTable;
  contacts: ContactTable;
  blocklist: BlocklistTable;
  blocklist_removals: BlocklistRemovalTable;
  birthday_campaigns: BirthdayCampaignTable;
  birthday_sends: BirthdaySendTable;
}

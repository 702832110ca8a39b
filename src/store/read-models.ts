// The reads the HTTP edge makes of the store's aggregate modules (which also write): re-exported here so that the
// console and the public pages import reads only. Their changes go through operations (operations/execute.ts);
// `.dependency-cruiser.cjs` keeps http/ to this module, the console's read models (console-*.ts) and its sign-in
// state.
export { findAccountById, findAccountByUsername, listAllowedIps } from './accounts.ts';
export { findCampaign, type Campaign } from './campaigns.ts';
export { listBirthdayCampaigns } from './birthdays.ts';
export { blocklistPage, type BlocklistCursor } from './blocklist.ts';
export { findContactList, listContactLists, pageContacts } from './contacts.ts';
export { filteredAmong } from './filtered-phones.ts';
export { ledgerPage, type LedgerEntry } from './ledger.ts';
export { shortLinkTarget } from './links.ts';
export { findUnsubscribeTarget } from './messages.ts';
export { hasPushSecret, listPushAttempts, listPushRegistrations } from './push.ts';
export { findSenderVerification, listVerifiedSenders } from './senders.ts';
export { listActiveTokens, listTokens } from './tokens.ts';

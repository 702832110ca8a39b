// The read-model port of the HTTP edge: every read the console and the public pages make of the store, from the
// aggregate modules (which also write) and the console's own readers (console-*.ts), re-exported here so that
// http/ imports reads from one place. Their changes go through operations (operations/execute.ts);
// `.dependency-cruiser.cjs` keeps http/ to this module and, apart, the console's sign-in state and the public
// pages' click count.
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
export { listSmppBinds, type SmppBindRow } from './smpp-binds.ts';
export { countSmppOutboxWaiting } from './smpp-outbox.ts';
export { allVerifiedSenders, findSenderVerification, listVerifiedSenders } from './senders.ts';
export { listAccountPrices, readRateCard } from './prices.ts';
export {
  accountSenderRequests,
  allSenderRequests,
  reservedSenderPatterns,
  type SenderRequest,
} from './sender-requests.ts';
export { listActiveTokens, listTokens } from './tokens.ts';
export * from './console-campaign-detail.ts';
export * from './console-campaigns.ts';
export * from './console-codes.ts';
export * from './console-inbound.ts';
export * from './console-message-detail.ts';
export * from './console-messages.ts';
export * from './console-overview.ts';
export * from './console-subaccounts.ts';
export { findOperatorById, findOperatorByName, listOperators, type Operator } from './operators.ts';
export { auditPage, type AuditEntry, type AuditFilter } from './audit.ts';
export { accountOperatorSettings, listAccountsForOperator, type AccountListing } from './operator-accounts.ts';
export { listCarriers, listRoutes, type CarrierRow, type StoredRoute } from './carriers.ts';
export { liveNodes, type NodeRecord } from './nodes.ts';
export { activeAlerts, alertWebhook, listAlertRules, recentAlerts, type AlertRecord } from './alerts.ts';
export { operatorMessagePage, type OperatorMessageFilter, type OperatorMessageRow } from './admin-messages.ts';
export {
  failingPushUrlsOfAll,
  trafficBuckets,
  trafficCounts,
  TRAFFIC_FLOWS,
  type FailingPushUrl,
  type TrafficFlow,
} from './dashboard.ts';
export { carrierOutcomesSince } from './alerts.ts';
export { dueQueue, retryQueueByCarrier } from './carrier-queue.ts';
export { trafficBetween, trafficByChannel, trafficBySpan } from './margins.ts';

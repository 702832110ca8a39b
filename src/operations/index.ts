// The operation table: every root element the API answers, in one place.
import type { Operation } from './types.ts';
import { balance } from './balance.ts';
import { getApiToken } from './tokens.ts';
import { addNumCL, getCL, getCLbyID, newCL, removeCL, rmNumCL } from './contacts.ts';
import { addNumBL, blacklist, rmNumBL } from './blocklist.ts';
import { editBirthdayCampaign, getBirthdayCampaigns, newBirthdayCampaign } from './birthdays.ts';
import { sms } from './sms.ts';
import { bulk } from './bulk.ts';
import { cancel } from './campaigns.ts';
import { getVerifiedPhones, verifyPhone } from './senders.ts';
import { dlr, dlrByDate, incoming } from './reports.ts';
import { pushUrl } from './push.ts';
import { sendOtp, validateOtp } from './otp.ts';
import { addSub, getBlanceSubs, updateAmountSub } from './reseller.ts';

const OPERATIONS: Operation<any>[] = [
  getApiToken,
  balance,
  newCL,
  removeCL,
  addNumCL,
  rmNumCL,
  getCL,
  getCLbyID,
  blacklist,
  addNumBL,
  rmNumBL,
  newBirthdayCampaign,
  getBirthdayCampaigns,
  editBirthdayCampaign,
  sms,
  bulk,
  cancel,
  verifyPhone,
  getVerifiedPhones,
  dlr,
  dlrByDate,
  incoming,
  pushUrl,
  sendOtp,
  validateOtp,
  addSub,
  updateAmountSub,
  getBlanceSubs,
];

const byName = new Map<string, Operation<any>>();
for (const op of OPERATIONS) {
  for (const name of op.names) {
    if (byName.has(name)) throw new Error(`operation ${name} declared twice`);
    byName.set(name, op);
  }
}

/** The operation for a root element name, if any. */
export function findOperation(root: string): Operation<any> | undefined {
  return byName.get(root);
}

/** Every root element name, for docs and tests. */
export function operationNames(): string[] {
  return [...byName.keys()];
}

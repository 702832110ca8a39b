// The operation table: every root element the API answers, in one place; and, apart, the internal operations the
// console and the CLI run (never answered on /api, never in the API document).
import { requestSender } from './sender-requests.ts';
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
import { sendWhatsappMessage, sendWhatsappTemplate } from './whatsapp/wire-sends.ts';
import { getPhoneTemplates } from './whatsapp/templates.ts';
import { sendOtpWhatsapp } from './whatsapp/otp.ts';
import {
  addAllowedAddress,
  clearPushSigning,
  deleteApiToken,
  deletePushUrl,
  disablePushUrl,
  enablePushUrl,
  mintApiToken,
  newPushSecret,
  removeAllowedAddress,
  setAddressCheck,
  testPushUrl,
} from './account-access.ts';
import {
  disableTwoFactor,
  enableTwoFactor,
  holdSubAccount,
  setConsolePassword,
  setLowBalanceWarning,
} from './account-security.ts';
import { setSmppLimits, setSmppPassword } from './smpp-access.ts';
import { smppSubmit } from './smpp-submit.ts';
import {
  addInboundNumber,
  closeAccount,
  creditAccount,
  resumeAccount,
  setOtpAbroad,
  setPasswordAuthentication,
  setPushPrivateAddresses,
  suspendAccount,
  verifySender,
} from './operator-changes.ts';

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
  sendWhatsappMessage,
  sendWhatsappTemplate,
  getPhoneTemplates,
  sendOtpWhatsapp,
];

/** The internal operations: run by the console and the CLI through the runner, never by an API request. */
const INTERNAL_OPERATIONS: Operation<any>[] = [
  addAllowedAddress,
  removeAllowedAddress,
  setAddressCheck,
  mintApiToken,
  deleteApiToken,
  testPushUrl,
  disablePushUrl,
  enablePushUrl,
  deletePushUrl,
  newPushSecret,
  clearPushSigning,
  setConsolePassword,
  enableTwoFactor,
  disableTwoFactor,
  setLowBalanceWarning,
  holdSubAccount,
  setSmppPassword,
  setSmppLimits,
  smppSubmit,
  creditAccount,
  suspendAccount,
  resumeAccount,
  closeAccount,
  setOtpAbroad,
  setPasswordAuthentication,
  verifySender,
  requestSender,
  setPushPrivateAddresses,
  addInboundNumber,
];

const byName = new Map<string, Operation<any>>();
for (const op of INTERNAL_OPERATIONS) {
  if (!op.internal) throw new Error(`operation ${op.names[0]} is listed as internal but not declared so`);
}
for (const op of OPERATIONS) {
  if (op.internal) throw new Error(`internal operation ${op.names[0]} listed in the API's table`);
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

/** The names of the internal operations (for tests: none of them is answered on /api or documented). */
export function internalOperationNames(): string[] {
  return INTERNAL_OPERATIONS.flatMap((op) => op.names);
}

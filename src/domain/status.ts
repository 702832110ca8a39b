// The one catalogue of request status codes (top-level `status`), with English and Hebrew messages.

export interface StatusEntry {
  en: string;
  he: string;
}

const CATALOGUE = {
  0: { en: 'Success', he: 'הפעולה בוצעה בהצלחה' },
  1: { en: 'There was a problem parsing your XML/JSON', he: 'ישנה בעיה בפענוח ה-XML/JSON' },
  2: { en: 'Missing required field', he: 'חסר שדה חובה' },
  3: {
    en: 'Username or password is incorrect and API token is invalid',
    he: 'שם משתמש או סיסמה שגויים והטוקן אינו תקין',
  },
  4: { en: 'Not enough credit', he: 'אין מספיק יתרה' },
  5: { en: 'No permission to send SMS at this time', he: 'אין הרשאה לשלוח הודעות בשעה זו' },
  6: { en: 'Process failure', he: 'כשל בתהליך' },
  7: {
    en: 'You can not send in this format, use bulk for per-recipient text',
    he: 'לא ניתן לשלוח בפורמט זה, השתמשו ב-bulk לטקסט לכל נמען',
  },
  8: { en: 'All numbers are on a blocked list', he: 'כל המספרים נמצאים ברשימה חסומה' },
  9: { en: 'At least one of the destinations is too short or too long', he: 'לפחות אחד מהיעדים קצר או ארוך מדי' },
  10: { en: 'Expired API token', he: 'תוקף הטוקן פג' },
  11: { en: 'API token is valid but does not match username', he: 'הטוקן תקין אך אינו תואם לשם המשתמש' },
  12: { en: 'Not enough money', he: 'אין מספיק כסף' },
  502: { en: 'Action type not valid', he: 'סוג הפעולה אינו תקין' },
  503: { en: 'Username not exist in your account', he: 'שם המשתמש אינו קיים בחשבונך' },
  504: { en: 'Current token not found', he: 'לא נמצא טוקן נוכחי' },
  510: { en: 'Invalid verify_phone request: no phones to verify', he: 'בקשת אימות לא תקינה: אין מספרים לאימות' },
  511: { en: 'You have no permission for this function', he: 'אין לך הרשאה לפעולה זו' },
  515: { en: 'Unverified source', he: 'מקור שאינו מאומת' },
  517: { en: 'Push url already registered for this type', he: 'כבר קיימת כתובת לסוג זה' },
  714: { en: 'Non valid content in parameter temp_bl', he: 'תוכן לא תקין בפרמטר temp_bl' },
  715: { en: 'All numbers have been temporarily blocked', he: 'כל המספרים נחסמו זמנית' },
  933: { en: 'Invalid phone number', he: 'מספר טלפון לא תקין' },
  944: { en: 'Some numbers were not in the blacklist', he: 'חלק מהמספרים לא היו ברשימה השחורה' },
  946: { en: 'Numbers successfully added to blacklist', he: 'המספרים נוספו בהצלחה לרשימה השחורה' },
  955: { en: 'Campaign already canceled', he: 'הדיוור כבר בוטל' },
  966: { en: 'Campaign already sent', he: 'הדיוור כבר נשלח' },
  970: { en: 'Campaign not cancelled, contact support', he: 'הדיוור לא בוטל, פנו לתמיכה' },
  977: { en: 'Campaign does not belong to customer or does not exist', he: 'הדיוור אינו שייך ללקוח או אינו קיים' },
  980: { en: 'Invalid link', he: 'קישור לא תקין' },
  981: { en: 'Error creating short link', he: 'שגיאה ביצירת קישור מקוצר' },
  986: { en: 'Invalid unsubscribe value', he: 'ערך הסרה לא תקין' },
  987: {
    en: 'More than one contact list, or phones, with dynamic fields',
    he: 'יותר מרשימת תפוצה אחת, או מספרים, עם שדות דינמיים',
  },
  988: { en: 'Contact list does not exist', he: 'רשימת התפוצה אינה קיימת' },
  989: { en: 'Message or campaign name too short/long', he: 'ההודעה או שם הדיוור קצרים/ארוכים מדי' },
  990: { en: 'Amount must be smaller than credit', he: 'הכמות חייבת להיות קטנה מהיתרה' },
  991: { en: 'Amount must contain only digits', he: 'הכמות חייבת להכיל ספרות בלבד' },
  992: { en: 'Source length is invalid', he: 'אורך המקור אינו תקין' },
  993: { en: 'Password length is invalid', he: 'אורך הסיסמה אינו תקין' },
  994: { en: 'Username already exists', he: 'שם המשתמש כבר קיים' },
  995: { en: 'Username length is invalid', he: 'אורך שם המשתמש אינו תקין' },
  996: { en: 'Name length is invalid', he: 'אורך השם אינו תקין' },
  997: { en: 'Not a valid command sent', he: 'לא נשלחה פקודה תקינה' },
  998: { en: 'Unknown error on request', he: 'שגיאה לא ידועה בבקשה' },
  999: { en: 'Contact support', he: 'פנו לתמיכה' },
} as const satisfies Record<number, StatusEntry>;

const NOT_DELIVERED_TEXT: StatusEntry = { he: 'לא הגיע ליעד', en: 'Not delivered' };

/** Request status codes as compatibility.md lists them. */
export const REQUEST_STATUS: Readonly<Record<number, StatusEntry>> = CATALOGUE;

/** A request status code of the catalogue: a handler can raise no other. */
export type RequestStatus = keyof typeof CATALOGUE;

/**
 * Catalogue codes no operation raises, and why; a test fails when a code is neither raised nor listed here.
 * 6 and 999 belong to the peer's own failures (Yona answers 998 for a fault of its own).
 */
export const RESERVED_REQUEST_STATUSES: Partial<Record<RequestStatus, string>> = {
  6: "the peer's process failure: a fault of Yona's own is 998",
  999: "the peer's 'contact support': a fault of Yona's own is 998",
};

/**
 * Every delivery status of the catalogue (compatibility.md, "Delivery statuses"), by name: those Yona sets itself,
 * those its carriers' receipts map to, and Yona's own in the catalogue's ranges (call outcomes, temp_bl).
 */
export const DELIVERY = {
  /** Submitted, no receipt yet. */
  SUBMITTED: -1,
  /** Delivered: the older code of the catalogue (102 is the live one). */
  DELIVERED_LEGACY: 0,
  FAILED: 1,
  /** No final receipt within the receipt window. */
  TIMEOUT: 2,
  /** Failed: the catalogue gives 3, 5 and 6 the meaning of 1. */
  FAILED_3: 3,
  NETWORK_FAILED: 4,
  FAILED_5: 5,
  FAILED_6: 6,
  NO_BALANCE: 7,
  STORE_AND_FORWARD_FAILED: 14,
  /** A filtered ("Kosher") handset that refuses texts. */
  FILTERED_HANDSET: 15,
  HOUR_NOT_PERMITTED: 16,
  ADVERTISING_BLOCKED: 17,
  /** The carrier refused the message itself. */
  ILLEGAL_MESSAGE: 18,
  NOT_DELIVERED: 101,
  DELIVERED: 102,
  EXPIRED: 103,
  /** Cancelled before it left. */
  DELETED: 104,
  /** The callee's side refused the message or call (a call: a 4xx other than busy or no answer). */
  REJECTED: 108,
  /** A call: the callee is busy (486, 600). */
  CALL_BUSY: 110,
  /** A call: rang with no answer until the ring timeout (408, 480, 487, or a CANCEL never answered with 487). */
  CALL_NO_ANSWER: 111,
  /** A call: the trunk refused it (3xx, 5xx, 6xx other than 600); refunded. */
  CALL_REFUSED: 112,
  /** A call: answered, and the callee hung up before the message ended (its call_seconds say how much played). */
  CALL_HUNG_UP: 113,
  /** A call: answered with no codec in common (neither PCMA nor PCMU); hung up at once and refunded. */
  CALL_NO_CODEC: 114,
  /** The recipient is on the account's blocklist. */
  BLOCKED: 201,
  /** WhatsApp: on WhatsApp's servers, not yet on the phone (a state on the way, like -1). */
  WHATSAPP_SENT: 301,
  /** WhatsApp: delivered to the user's phone (a later read replaces it). */
  WHATSAPP_DELIVERED: 302,
  /** WhatsApp: the user read it (never replaced). */
  WHATSAPP_READ: 303,
  /** WhatsApp: failed (Meta's error code is kept beside it). */
  WHATSAPP_FAILED: 304,
  /** WhatsApp: the number has no WhatsApp account (Meta 131026); an SMS may still reach it. */
  WHATSAPP_NO_ACCOUNT: 305,
  /** WhatsApp: free text outside the user's 24-hour window (Meta 131047): a template is needed. */
  WHATSAPP_OUTSIDE_WINDOW: 306,
  /** WhatsApp: the template was refused (missing, not approved, or its parameters do not fit: Meta 132xxx). */
  WHATSAPP_TEMPLATE_REFUSED: 307,
  /** Skipped at release by its send's temp_bl (Yona's: 715, as at acceptance). */
  TEMP_BLOCKED: 715,
  OUT_OF_COVERAGE: 747,
  NO_PERMISSION: 998,
  UNKNOWN: 999,
} as const;

/** A delivery status of the catalogue. */
export type DeliveryStatus = (typeof DELIVERY)[keyof typeof DELIVERY];

/** Hebrew and English texts of every delivery status (inside delivery reports). */
export const DELIVERY_STATUS: Readonly<Record<DeliveryStatus, StatusEntry>> = {
  [-1]: { he: 'נשלח - ללא אישור מסירה', en: 'Sent, no delivery confirmation' },
  0: { he: 'הגיע ליעד', en: 'Delivered' },
  1: { he: 'נכשל', en: 'Failed' },
  2: { he: 'Timeout', en: 'Timeout: no confirmation within the carrier window' },
  3: { he: 'נכשל', en: 'Failed' },
  4: { he: 'נכשל סלולר', en: 'Failed at the mobile network' },
  5: { he: 'נכשל', en: 'Failed' },
  6: { he: 'נכשל', en: 'Failed' },
  7: { he: 'אין יתרה', en: 'No balance' },
  14: { he: 'נכשל סלולר - עבר תהליך של store&forward', en: 'Failed after store-and-forward' },
  15: { he: 'מספר כשר', en: 'Filtered (Kosher) handset, refuses texts' },
  16: { he: 'אין הרשאת שעת שליחה', en: 'Sending hour not permitted' },
  17: { he: 'חסום להודעות פירסומיות', en: 'Blocked for advertising messages' },
  18: { he: 'הודעה לא חוקית', en: 'Illegal message' },
  101: NOT_DELIVERED_TEXT,
  102: { he: 'הגיע ליעד', en: 'Delivered' },
  103: { he: 'פג תוקף', en: 'Expired' },
  104: { he: 'נמחק', en: 'Deleted' },
  108: { he: 'נדחה', en: 'Rejected' },
  110: { he: 'לא נענה - תפוס', en: 'Call not answered: busy' },
  111: { he: 'לא נענה - אין מענה', en: 'Call not answered: no answer' },
  112: { he: 'השיחה נדחתה על ידי ספק השיחות', en: 'Call refused by the trunk' },
  113: { he: 'נענה - נותק לפני סוף ההודעה', en: 'Call answered, hung up before the message ended' },
  114: { he: 'נענה - אין קודק משותף', en: 'Call answered without a usable codec' },
  201: { he: 'נחסם לפי בקשה', en: 'Blocked on request (blocklist)' },
  301: { he: 'וואטסאפ - נשלח', en: 'WhatsApp: sent, not yet delivered to the phone' },
  302: { he: 'וואטסאפ - הגיע ליעד', en: 'WhatsApp: delivered' },
  303: { he: 'וואטסאפ - נקרא', en: 'WhatsApp: read' },
  304: { he: 'וואטסאפ - נכשל', en: 'WhatsApp: failed' },
  305: { he: 'וואטסאפ - למספר אין וואטסאפ', en: 'WhatsApp: the number has no WhatsApp' },
  306: {
    he: 'וואטסאפ - מחוץ לחלון 24 השעות, יש לשלוח תבנית',
    en: "WhatsApp: outside the user's 24-hour window, a template is needed",
  },
  307: { he: 'וואטסאפ - התבנית נדחתה', en: 'WhatsApp: template refused' },
  715: {
    he: 'נחסם זמנית (temp_bl)',
    en: 'Temporarily blocked (temp_bl): the number got a message within the last days',
  },
  747: { he: 'מנוי נמצא מחוץ לכיסוי רשת מקומית', en: 'Out of local network coverage' },
  998: { he: 'אין הרשאה', en: 'No permission' },
  999: { he: 'שגיאה לא ידועה', en: 'Unknown error' },
};

/** Texts for a delivery status; the rest of 105-132 shares 101's "not delivered", any other code 999's. */
export function deliveryStatusText(status: number): StatusEntry {
  const known = (DELIVERY_STATUS as Readonly<Record<number, StatusEntry | undefined>>)[status];
  if (known) return known;
  if (status >= 105 && status <= 132) return NOT_DELIVERED_TEXT;
  return DELIVERY_STATUS[DELIVERY.UNKNOWN];
}

/** English message of a request status code. */
export function statusMessage(code: number): string {
  return (REQUEST_STATUS[code] ?? REQUEST_STATUS[998]).en;
}

/**
 * Codes the catalogue gives two meanings, by operation: the text that fits the operation (compatibility.md), so the
 * other meaning's text is never used for it (validate_otp's 12 is an unverified code, not "Not enough money").
 */
export const OPERATION_TEXTS: Readonly<Record<string, Readonly<Partial<Record<number, StatusEntry>>>>> = {
  validate_otp: { 12: { en: 'Unverified code', he: 'קוד לא מאומת' } },
};

function entryFor(code: number, operation: string | undefined): StatusEntry | undefined {
  return (operation === undefined ? undefined : OPERATION_TEXTS[operation]?.[code]) ?? REQUEST_STATUS[code];
}

/** English text of a request status code as the operation means it (the log's `text`). */
export function statusText(code: number, operation: string): string {
  return (entryFor(code, operation) ?? REQUEST_STATUS[998]).en;
}

/**
 * A message in Hebrew where it is the catalogue's English text for its status (as `operation` means it), alone or
 * before `: detail`.
 */
export function hebrewMessage(status: number, message: string, operation?: string): string {
  const entry = entryFor(status, operation);
  if (!entry || !(message === entry.en || message.startsWith(`${entry.en}:`))) return message;
  return entry.he + message.slice(entry.en.length);
}

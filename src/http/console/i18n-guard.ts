// The console's words for what its guards refuse (a form or address field that is not text, repeated failed
// sign-ins on one account), in English and Hebrew; merged into i18n.ts's catalogues. `{name}` marks a value put in
// by `fmt`.
export const enGuard = {
  inputRefusedTitle: 'Not accepted',
  inputRefusedField: 'The field “{field}” was not accepted: {why}. Nothing was saved or sent.',
  inputRefusedQuery: 'The address parameter “{field}” was not accepted: {why}. Nothing was saved or sent.',
  inputRefusedName: 'A field name was not accepted: {why}. Nothing was saved or sent.',
  inputRefusedPath: 'The address was not accepted: {why}. Nothing was saved or sent.',
  inputNotText: 'it is not valid UTF-8 text',
  inputControl: 'it holds the control character {code}',
  inputSurrogate: 'it holds half of a surrogate pair ({code})',
  inputBack: 'Back to the page',
  accountSlowed: 'Too many failed attempts on this account. Try again in {seconds} s.',
};

export const heGuard: typeof enGuard = {
  inputRefusedTitle: 'לא התקבל',
  inputRefusedField: 'השדה „{field}” לא התקבל: {why}. דבר לא נשמר ולא נשלח.',
  inputRefusedQuery: 'הפרמטר „{field}” בכתובת לא התקבל: {why}. דבר לא נשמר ולא נשלח.',
  inputRefusedName: 'שם של שדה לא התקבל: {why}. דבר לא נשמר ולא נשלח.',
  inputRefusedPath: 'הכתובת לא התקבלה: {why}. דבר לא נשמר ולא נשלח.',
  inputNotText: 'הוא אינו טקסט UTF-8 תקין',
  inputControl: 'הוא מכיל את תו הבקרה {code}',
  inputSurrogate: 'הוא מכיל חצי של זוג תחליפי ({code})',
  inputBack: 'חזרה לדף',
  accountSlowed: 'יותר מדי ניסיונות כושלים בחשבון זה. נסו שוב בעוד {seconds} שנ׳.',
};

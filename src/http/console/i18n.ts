// The console's words in English and Hebrew. `{name}` marks a value put in by `fmt`.
export type Lang = 'en' | 'he';

export const en = {
  skip: 'Skip to content',
  navLabel: 'Sections',
  navCampaigns: 'Campaigns',
  navTokens: 'API tokens',
  navIps: 'Authorised IPs',
  navPush: 'Push URLs',
  navBalance: 'Balance',
  navSenders: 'Senders',
  navLists: 'Contact lists',
  navBlocklist: 'Blocklist',
  navBirthdays: 'Birthdays',
  navSubs: 'Sub-accounts',
  logout: 'Sign out',
  loginTitle: 'Sign in',
  username: 'Username',
  password: 'Password',
  signIn: 'Sign in',
  loginInvalid: 'Wrong username or password.',
  loginLocked: 'Too many failed sign-ins for this user. Try again in {minutes} minutes.',
  loginRate: 'Too many sign-in attempts from your address. Try again in a minute.',
  loggedOut: 'You are signed out.',
  sessionExpired: 'Your session ended. Please sign in again.',
  formExpired: 'This form has expired (or came from another page). Reload the page and try again.',
  notFound: 'Not found',
  notFoundText: 'There is nothing here, or it belongs to another account.',
  failed: 'Something went wrong; nothing was changed. Try again.',
  home: 'Overview',
  yes: 'Yes',
  no: 'No',
  delete: 'Delete',
  add: 'Add',
  save: 'Save',
  created: 'Created',
  name: 'Name',
  actions: 'Actions',
  none: 'None yet.',
  credits: 'SMS credits',
  international: 'International balance',
};

export type Messages = { [K in keyof typeof en]: string };

export const he: Messages = {
  skip: 'דלג לתוכן',
  navLabel: 'מדורים',
  navCampaigns: 'קמפיינים',
  navTokens: 'טוקנים ל-API',
  navIps: 'כתובות IP מורשות',
  navPush: 'כתובות Push',
  navBalance: 'יתרה',
  navSenders: 'שולחים',
  navLists: 'רשימות אנשי קשר',
  navBlocklist: 'רשימת חסימה',
  navBirthdays: 'ימי הולדת',
  navSubs: 'תתי-חשבונות',
  logout: 'התנתקות',
  loginTitle: 'כניסה',
  username: 'שם משתמש',
  password: 'סיסמה',
  signIn: 'כניסה',
  loginInvalid: 'שם המשתמש או הסיסמה שגויים.',
  loginLocked: 'יותר מדי ניסיונות כניסה כושלים למשתמש זה. נסו שוב בעוד {minutes} דקות.',
  loginRate: 'יותר מדי ניסיונות כניסה מהכתובת שלכם. נסו שוב בעוד דקה.',
  loggedOut: 'התנתקתם.',
  sessionExpired: 'החיבור הסתיים. נא להיכנס שוב.',
  formExpired: 'תוקף הטופס פג (או שהגיע מדף אחר). טענו את הדף מחדש ונסו שוב.',
  notFound: 'לא נמצא',
  notFoundText: 'אין כאן דבר, או שהוא שייך לחשבון אחר.',
  failed: 'משהו השתבש; דבר לא שונה. נסו שוב.',
  home: 'סקירה',
  yes: 'כן',
  no: 'לא',
  delete: 'מחיקה',
  add: 'הוספה',
  save: 'שמירה',
  created: 'נוצר',
  name: 'שם',
  actions: 'פעולות',
  none: 'אין עדיין.',
  credits: 'יתרת הודעות',
  international: 'יתרה בינלאומית',
};

export function messages(lang: Lang): Messages {
  return lang === 'he' ? he : en;
}

export function fmt(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? String(values[k]) : m));
}

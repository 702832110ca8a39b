// The console's words for the SMPP page (an account's binds to the SMPP server and what waits for them), in English
// and Hebrew; merged into i18n.ts's catalogues. `{name}` marks a value put in by `fmt`.
export const enSmpp = {
  navSmpp: 'SMPP',
  smppTitle: 'SMPP sessions',
  smppIntro:
    'Your gateway’s binds to our SMPP server now, on every node. Receipts and replies go to a receiver or transceiver bind; while you have none they wait here and go out when you bind again.',
  smppWaiting: 'Receipts and replies waiting for a receiver bind: {count}',
  smppBinds: 'Binds now',
  smppBindType: 'Bind',
  smppFrom: 'From address',
  smppNode: 'Node',
  smppSince: 'Since',
  smppRate: 'Submits/s',
  smppNone: 'No bind now.',
  smppTls: 'TLS',
  smppTransmitter: 'transmitter',
  smppReceiver: 'receiver',
  smppTransceiver: 'transceiver',
};

export const heSmpp: { [K in keyof typeof enSmpp]: string } = {
  navSmpp: 'SMPP',
  smppTitle: 'חיבורי SMPP',
  smppIntro:
    'החיבורים (bind) של השער שלכם לשרת ה-SMPP שלנו כרגע, בכל השרתים. אישורי מסירה ותגובות נשלחים לחיבור receiver או transceiver; כשאין כזה הם ממתינים כאן ונשלחים כשתתחברו שוב.',
  smppWaiting: 'אישורי מסירה ותגובות שממתינים לחיבור receiver: {count}',
  smppBinds: 'חיבורים כרגע',
  smppBindType: 'חיבור',
  smppFrom: 'מכתובת',
  smppNode: 'שרת',
  smppSince: 'מאז',
  smppRate: 'שליחות לשנייה',
  smppNone: 'אין חיבור כרגע.',
  smppTls: 'TLS',
  smppTransmitter: 'transmitter',
  smppReceiver: 'receiver',
  smppTransceiver: 'transceiver',
};

// What the Cloud API simulator does with a message, chosen by the last four digits of the user's phone number:
// refusals answered on the send itself (a throttling code, a given number of times before the send is taken), and
// the sequence of statuses its webhooks report once a message is taken.

/** One of Meta's error codes, with the title and details its answers and webhooks carry. */
export interface MetaError {
  code: number;
  title: string;
  details: string;
}

export const ERRORS = {
  throughput: {
    code: 130429,
    title: 'Rate limit hit',
    details: 'Cloud API message throughput has been reached.',
  },
  spam: {
    code: 131048,
    title: 'Spam rate limit hit',
    details:
      'Message failed to send because there are restrictions on how many messages can be sent from this phone number.',
  },
  undeliverable: {
    code: 131026,
    title: 'Message undeliverable',
    details: 'Message Undeliverable: the recipient is not a WhatsApp user.',
  },
  window: {
    code: 131047,
    title: 'Re-engagement message',
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
  generic: {
    code: 131000,
    title: 'Something went wrong',
    details: 'Message failed to send due to an unknown error.',
  },
} as const satisfies Record<string, MetaError>;

/** A status a message's webhooks report, with the error of a failed one. */
export interface PlannedStatus {
  status: 'sent' | 'delivered' | 'read' | 'failed';
  /** How many status delays after the send it goes out. */
  step: number;
  error?: MetaError;
}

/** One scripted outcome: refusals before the send is taken, then the statuses reported. */
export interface Outcome {
  name: string;
  /** Destinations whose phone number ends with these digits ('' for every other one). */
  suffix: string;
  /** The send is refused this many times in a row (HTTP 400 with `refusal`) before one is taken. */
  refusals?: { times: number; error: MetaError };
  statuses: readonly PlannedStatus[];
}

const READ: readonly PlannedStatus[] = [
  { status: 'sent', step: 1 },
  { status: 'delivered', step: 2 },
  { status: 'read', step: 3 },
];

/** The scripted outcomes, by suffix; every other number is sent, delivered and read. */
export const OUTCOMES: readonly Outcome[] = [
  { name: 'no-whatsapp', suffix: '1026', statuses: [{ status: 'failed', step: 1, error: ERRORS.undeliverable }] },
  { name: 'spam-limited-once', suffix: '1048', refusals: { times: 1, error: ERRORS.spam }, statuses: READ },
  { name: 'throttled-twice', suffix: '0429', refusals: { times: 2, error: ERRORS.throughput }, statuses: READ },
  {
    name: 'fails-after-delivered',
    suffix: '1001',
    statuses: [
      { status: 'sent', step: 1 },
      { status: 'delivered', step: 2 },
      { status: 'failed', step: 3, error: ERRORS.generic },
    ],
  },
  {
    name: 'read-without-delivered',
    suffix: '2000',
    statuses: [
      { status: 'sent', step: 1 },
      { status: 'read', step: 2 },
    ],
  },
];

const READ_BY_DEFAULT: Outcome = { name: 'read', suffix: '', statuses: READ };

/** The outcome scripted for a phone number (digits only), else sent, delivered and read. */
export function outcomeFor(phone: string | undefined): Outcome {
  const digits = (phone ?? '').replace(/\D/g, '');
  return OUTCOMES.find((o) => digits.endsWith(o.suffix)) ?? READ_BY_DEFAULT;
}

/** A free-form text to a user whose 24-hour window is closed: taken, then failed with 131047. */
export const OUTSIDE_WINDOW: Outcome = {
  name: 'outside-window',
  suffix: '',
  statuses: [{ status: 'failed', step: 1, error: ERRORS.window }],
};

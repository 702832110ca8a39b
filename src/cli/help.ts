// What `yona --help`, `yona admin --help` and `--help` on every command print: each command's usage, what it
// does and an example; and the nearest valid name for a mistyped command or option.
import { channelNames } from '../domain/channels.ts';
import { editDistance } from '../domain/edit-distance.ts';

// The channels --channel takes, from the channel registry ('sms|voice|whatsapp').
const CHANNELS = channelNames().join('|');

export interface CommandHelp {
  usage: string;
  summary: string;
  example: string;
}

/** The top-level commands. */
export const COMMAND_HELP: Record<string, CommandHelp> = {
  serve: {
    usage: 'yona serve [--roles api,dispatcher,scheduler,pusher,receipts,voice,smpp]',
    summary:
      'Runs the service: HTTPS API and console, plain HTTP on loopback, and the delivery workers (settings from the environment); --roles picks what this node runs (default: all).',
    example:
      'DATABASE_URL=postgres://yona@db/yona YONA_NODE_NAME=worker-1 yona serve --roles dispatcher,receipts,pusher',
  },
  admin: {
    usage: 'yona admin COMMAND ...',
    summary: 'Operator commands on the same store the service uses (safe while it runs); yona admin --help lists them.',
    example: 'yona admin create-account alice --password s3cret-pw --credits 100',
  },
  'smsc-sim': {
    usage:
      'yona smsc-sim --port N [--host ADDR] [--max-binds N] [--control-port N] [--receipt-delay MS] [--id-format text|submit-hex|receipt-hex] [--system-id ID --password PW] [--tls | --tls-cert CERT.pem --tls-key KEY.pem]',
    summary:
      "Runs the bundled SMSC simulator on its own, for a Yona configured with an SMPP carrier pointing at it. --host: the address SMPP listens on (127.0.0.1); --max-binds: sessions bound at once, as a carrier's bind limit (a bind beyond it is refused ESME_RBINDFAIL).",
    example: 'yona smsc-sim --port 2775 --control-port 2776',
  },
  'sip-sim': {
    usage: 'yona sip-sim --port N [--control-port N]',
    summary:
      'Runs the bundled call simulator on its own: a SIP test trunk (UDP on 127.0.0.1) for a Yona whose voice trunk points at it. It answers by the dialled number (0486 busy, 0603 declines, 0480 no answer, 0404 not found, else answers and takes the RTP); yona sim calls lists them.',
    example: 'yona sip-sim --port 5070 --control-port 5071',
  },
  'wa-sim': {
    usage:
      'yona wa-sim --port N [--control-port N] [--webhook URL] [--app-secret S] [--token T] [--status-delay MS] [--business NUMBER=PHONE_NUMBER_ID[:WABA_ID]]... [--window on|off] [--retry-base MS]',
    summary:
      "Runs the bundled WhatsApp Cloud API simulator on its own: Graph's message and template paths on 127.0.0.1 behind a bearer token, signed webhooks (retried until answered 2xx) with sent, delivered and read every --status-delay, outcomes by the user's last four digits (1026 no WhatsApp, 1048 spam-limited once, 0429 throttled twice, 1001 fails after delivered, 2000 read without delivered).",
    example:
      'yona wa-sim --port 8440 --control-port 8441 --webhook http://127.0.0.1:8080/webhooks/whatsapp/wa --app-secret s3cret',
  },
  sim: {
    usage:
      'yona sim mo [--channel whatsapp] --from PHONE --to NUMBER --text TEXT [--name NAME] [--bsuid-only] | yona sim messages [--channel whatsapp] [--to PHONE] [--json] | yona sim calls [--to PHONE] [--json]',
    summary:
      'Talks to a running simulator: sends an inbound SMS (or, with --channel whatsapp, a WhatsApp user writes to a business number), lists the texts, WhatsApp messages and calls it received.',
    example: 'yona sim mo --from 0501234567 --to 0559990000 --text "STOP"',
  },
};

/** The `yona admin` commands. */
export const ADMIN_HELP: Record<string, CommandHelp> = {
  backup: {
    usage: 'yona admin backup FILE',
    summary:
      'Copies the embedded store into FILE while the server runs (one consistent read, checked with integrity_check); on PostgreSQL it explains pg_dump.',
    example: 'yona admin backup /srv/backups/yona-2026-11-27.db',
  },
  restore: {
    usage: 'yona admin restore FILE',
    summary:
      'Checks a backup and puts it in place of the store of a data dir no yona serve runs on; the replaced store is set aside, not deleted.',
    example: 'yona admin restore /srv/backups/yona-2026-11-27.db',
  },
  'create-account': {
    usage:
      'yona admin create-account USERNAME --password PW [--name N] [--credits N] [--international SHEKELS] [--reseller] [--parent USERNAME] [--time-zone TZ] [--allow-ip CIDR]...',
    summary: "Creates an account (a reseller, or a reseller's sub-account with --parent) with its opening balances.",
    example: 'yona admin create-account alice --password s3cret-pw --credits 100 --international 20.00',
  },
  'create-token': {
    usage: 'yona admin create-token USERNAME [--expires-in 90d|12h|2s]',
    summary: 'Mints an API token; it is printed once, alone on the last line (only its SHA-256 is stored).',
    example: 'TOKEN=$(yona admin create-token alice | tail -n 1)',
  },
  'delete-token': {
    usage: 'yona admin delete-token USERNAME "TOKEN NAME"',
    summary: 'Deletes a token by its name; it stops working at once.',
    example: 'yona admin delete-token alice "API 25/11/2026 10:00:00"',
  },
  'allow-ip': {
    usage: 'yona admin allow-ip USERNAME CIDR',
    summary: "Adds an address or CIDR to the account's allowlist and turns the IP check on.",
    example: 'yona admin allow-ip alice 203.0.113.0/24',
  },
  'ip-check': {
    usage: 'yona admin ip-check USERNAME on|off',
    summary: "Turns the account's IP allowlist check on or off (on with no address locks the API out).",
    example: 'yona admin ip-check alice off',
  },
  'add-credits': {
    usage: 'yona admin add-credits USERNAME N',
    summary: 'Grants N domestic credits (a ledger row).',
    example: 'yona admin add-credits alice 500',
  },
  credit: {
    usage: 'yona admin credit ACCOUNT N --reason R',
    summary:
      'Adds (N > 0) or takes (N < 0) domestic credits, with a ledger row carrying the reason; a debit beyond the balance is refused.',
    example: 'yona admin credit alice -200 --reason "refund reversed"',
  },
  accounts: {
    usage: 'yona admin accounts [--json]',
    summary:
      'Lists every account: balance, state (active, suspended with its reason, closed), reseller, last send accepted.',
    example: 'yona admin accounts --json',
  },
  suspend: {
    usage: 'yona admin suspend ACCOUNT [--reason R]',
    summary:
      'Suspends an account: its API calls answer 511 and its console sign-in is refused until resumed (the reason shows in accounts, never to the customer).',
    example: 'yona admin suspend alice --reason "unpaid invoice"',
  },
  resume: {
    usage: 'yona admin resume ACCOUNT',
    summary: "Lifts the operator's suspension (a reseller's own suspension of its sub-account stays its to lift).",
    example: 'yona admin resume alice',
  },
  'close-account': {
    usage: 'yona admin close-account ACCOUNT',
    summary:
      'Closes an account: refused while it has open sub-accounts or campaigns scheduled for later; revokes its tokens and sessions, refuses sign-in, keeps its data (retention ages it out).',
    example: 'yona admin close-account alice',
  },
  'verify-sender': {
    usage: 'yona admin verify-sender USERNAME SOURCE',
    summary: 'Marks a sender (source) verified for the account, e.g. a landline confirmed by a call.',
    example: 'yona admin verify-sender alice 035551234',
  },
  senders: {
    usage: 'yona admin senders [--pending] [--json]',
    summary:
      'Lists the sender names customers requested from their console (waiting first, with their reasons and outcomes) and every verified sender.',
    example: 'yona admin senders --pending',
  },
  'approve-sender': {
    usage: 'yona admin approve-sender ID',
    summary: 'Approves a waiting sender name request: the name becomes a verified sender of the account.',
    example: 'yona admin approve-sender 12',
  },
  'reject-sender': {
    usage: 'yona admin reject-sender ID --reason TEXT',
    summary: 'Rejects a waiting sender name request; the customer sees the reason on its senders page.',
    example: 'yona admin reject-sender 12 --reason "Use your registered business name"',
  },
  'reserved-senders': {
    usage: 'yona admin reserved-senders list | add NAME | remove NAME',
    summary:
      'The sender names no customer may request (banks, government and public services, the operator; NAME* reserves every name that starts so), compared without case or punctuation.',
    example: 'yona admin reserved-senders add acme*',
  },
  'set-password': {
    usage: 'yona admin set-password USERNAME --password PW',
    summary: 'Sets the console password (argon2id), signs the account out of the console and lifts a lockout.',
    example: 'yona admin set-password alice --password n3w-secret',
  },
  'smpp-password': {
    usage: 'yona admin smpp-password ACCOUNT PASSWORD [--tls-only]',
    summary:
      'Sets the password the account binds to the SMPP server with (system_id: its username; at most 8 characters, kept hashed); --tls-only: binds over the TLS listener only.',
    example: 'yona admin smpp-password alice s3cr3t --tls-only',
  },
  'smpp-limits': {
    usage: 'yona admin smpp-limits ACCOUNT [--binds N] [--submits-per-second N] [--window N]',
    summary:
      "Sets the account's SMPP limits: binds at once over every node (4), submits per second on a node (0: none), requests a bind may have unanswered (100).",
    example: 'yona admin smpp-limits alice --binds 8 --submits-per-second 500',
  },
  'create-operator': {
    usage: 'yona admin create-operator NAME --password PW [--role admin|support]',
    summary:
      'Creates an operator of the console at /admin (admin: changes anything; support: reads every page, changes nothing); the first sign-in enrols an authenticator app.',
    example: 'yona admin create-operator dana --password n3w-secret-pw --role support',
  },
  nodes: {
    usage: 'yona admin nodes [--json]',
    summary:
      'Lists the live nodes on this database: roles, last heartbeat, and the binds, call shares and leadership each holds.',
    example: 'yona admin nodes --json',
  },
  'smpp-sessions': {
    usage: 'yona admin smpp-sessions [--json]',
    summary:
      "Lists customers' SMPP binds live over every node: account, node, bind type, remote address, since when, submits per second and the receipts waiting for the account; then accounts with receipts waiting and no bind.",
    example: 'yona admin smpp-sessions --json',
  },
  ledger: {
    usage: 'yona admin ledger USERNAME [--json]',
    summary: 'Prints every credit and money movement of the account with its reason and reference, and the balances.',
    example: 'yona admin ledger alice --json',
  },
  'otp-international': {
    usage: 'yona admin otp-international USERNAME on|off',
    summary: 'Lets the account send one-time codes to international numbers, or stops it.',
    example: 'yona admin otp-international alice on',
  },
  'legacy-password': {
    usage: 'yona admin legacy-password USERNAME on|off',
    summary:
      'Lets calls without a bearer token authenticate with user.username and user.password (over HTTPS only), or stops it.',
    example: 'yona admin legacy-password alice on',
  },
  'add-filtered': {
    usage: 'yona admin add-filtered PHONE... | --file FILE',
    summary: 'Adds filtered (Kosher) phones to the registry: voice sends of type 2 call them instead of texting.',
    example: 'yona admin add-filtered --file kosher-phones.txt',
  },
  'add-carrier': {
    usage:
      'yona admin add-carrier NAME [--protocol smpp] --host H --port P --system-id S --password PW [--system-type T] [--bind transceiver|tx+rx] [--binds N] [--window N] [--max-tps N] [--tls [--tls-ca CA.pem] [--tls-servername NAME]] [--long-messages udh|payload] [--receipt-ids as-is|submit-hex|receipt-hex|both-hex] [--daily-cap PARTS] [--cost-per-part AGOROT] | yona admin add-carrier NAME --protocol P --settings JSON [--daily-cap PARTS] [--cost-per-part AGOROT]',
    summary:
      'Adds or updates a carrier of any protocol (SMPP by default, with its own options; another protocol takes its settings as one JSON document), with an optional daily cap in SMS parts and price per part in agorot; running nodes bind it within seconds, no restart.',
    example:
      'yona admin add-carrier partner --host smsc.example.com --port 2775 --system-id yona --password pw --binds 2',
  },
  'add-route': {
    usage: `yona admin add-route PREFIX|default CARRIER[:WEIGHT]... [--account USERNAME] [--source SENDER] [--channel ${CHANNELS}]`,
    summary:
      'Routes destinations starting with PREFIX (international digits) to carriers in failover order, optionally weighted, for one account (or a reseller and its sub-accounts), sender or channel.',
    example: 'yona admin add-route 97250 partner cellcom',
  },
  'remove-route': {
    usage: `yona admin remove-route PREFIX|default [--account USERNAME] [--source SENDER] [--channel ${CHANNELS}]`,
    summary: 'Removes the route with exactly that prefix and those filters.',
    example: 'yona admin remove-route 97250',
  },
  'route-test': {
    usage: `yona admin route-test --to PHONE [--account USERNAME] [--source SENDER] [--channel ${CHANNELS}]`,
    summary: 'Says which route and carriers (in the order tried) a message would take; sends nothing.',
    example: 'yona admin route-test --account alice --source Shop --to 0521234567',
  },
  'remove-carrier': {
    usage: 'yona admin remove-carrier NAME',
    summary: 'Removes a carrier no route names; running nodes unbind it after its submits in flight are answered.',
    example: 'yona admin remove-carrier partner',
  },
  'add-number': {
    usage: 'yona admin add-number USERNAME NUMBER',
    summary: 'Gives the account an inbound number: texts to it show in its incoming and its push feed.',
    example: 'yona admin add-number alice 0559990000',
  },
  'whatsapp-price': {
    usage: 'yona admin whatsapp-price set CATEGORY CREDITS | remove CATEGORY | list [--json]',
    summary:
      "WhatsApp's rate card: the credits one WhatsApp message of a category (marketing, utility, authentication, service) costs an account, charged when the message is accepted and refunded when it fails; 1 credit when unset.",
    example: 'yona admin whatsapp-price set marketing 3',
  },
  'whatsapp-number': {
    usage: 'yona admin whatsapp-number add|remove|list USERNAME [972XXXXXXXXX] [--carrier NAME]',
    summary:
      "Grants an account a WhatsApp business number (it may send only from its own; users' messages to it go to it), optionally through one WhatsApp carrier; remove takes it back; list shows the grants.",
    example: 'yona admin whatsapp-number add alice 972771234567 --carrier wa-main',
  },
  carriers: {
    usage: 'yona admin carriers [--status [--json]]',
    summary:
      "Lists the carriers (passwords never shown), each with today's parts against its daily cap, and the routes; running nodes apply them within seconds. With --status: binds up, submits per second, window, throttling, queue and last error of each carrier over the running nodes.",
    example: 'yona admin carriers --status',
  },
  report: {
    usage: 'yona admin report margins [--month YYYY-MM] [--credit-price AGOROT] [--json]',
    summary:
      "Per account (sub-accounts under their reseller): messages and parts carriers took in the month, what the account was charged, the carriers' cost and the margin, with totals; then the same per channel.",
    example: 'yona admin report margins --month 2026-11 --credit-price 8',
  },
  price: {
    usage:
      'yona admin price list [--json] | set-country CC AGOROT|none | default AGOROT|none | account USERNAME [--domestic CREDITS|none] [--international AGOROT|none]',
    summary:
      "The international rate card (agorot a part per destination country, and the default for the rest, YONA_INTL_PRICE_AGOROT when none is set) and an account's own prices of a domestic part (credits) and an international part (agorot); sends and dry runs price with them from the next request.",
    example: 'yona admin price set-country US 18',
  },
  alerts: {
    usage:
      'yona admin alerts list [--json] | set KIND [--below PERCENT] [--minutes N] | remove KIND | webhook URL --secret SECRET | webhook none',
    summary:
      "The operator's alert thresholds (delivery-rate --below PERCENT --minutes N, carrier-down --minutes N, queue-age --minutes N, push-disabled), the active alerts, and the webhook raises and clears are posted to, signed with SECRET.",
    example: 'yona admin alerts set carrier-down --minutes 5',
  },
  push: {
    usage:
      'yona admin push list USERNAME [TYPE] | delete USERNAME TYPE | enable USERNAME TYPE | secret USERNAME [--clear] | log USERNAME TYPE [N] | allow-private USERNAME on|off',
    summary:
      "Shows and manages the account's push URL registrations, their signing secret and delivery log; allow-private lets its push URLs reach private and loopback addresses.",
    example: 'yona admin push log alice dlr 50',
  },
};

/** The help of one command, as printed. */
export function formatHelp(help: CommandHelp): string {
  return `usage: ${help.usage}\n\n${help.summary}\n\nexample:\n  ${help.example}`;
}

/** A list of commands with their summaries, as `yona --help` and `yona admin --help` print it. */
export function formatCommandList(title: string, commands: Record<string, CommandHelp>, more: string): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.entries(commands).map(([name, h]) => `  ${name.padEnd(width)}  ${h.summary}`);
  return `${title}\n\ncommands:\n${lines.join('\n')}\n\n${more}`;
}

/** Whether the arguments ask for help. */
export function wantsHelp(args: string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}

/** The candidate nearest to a mistyped name, when it is near enough to be what was meant. */
export function nearest(name: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** "; did you mean X?" for a mistyped name, or nothing. */
export function didYouMean(name: string, candidates: string[]): string {
  const match = nearest(name, candidates);
  return match ? `; did you mean "${match}"?` : '';
}

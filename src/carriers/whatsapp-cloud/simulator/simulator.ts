// The Cloud API simulator's state and rules, apart from HTTP: the business numbers it serves (any, registered or
// not), the users it knows, each user's 24-hour window, the messages it took with the statuses it reported, and
// the webhooks that report them and carry the users' own messages to the business.
import { randomBytes } from 'node:crypto';
import { type MetaError, OUTSIDE_WINDOW, type Outcome, outcomeFor, type PlannedStatus } from './outcomes.ts';
import { renderTemplate, type SimulatedTemplate, TemplateLibrary } from './templates.ts';
import { type SimulatedUser, UserDirectory, waIdOf } from './users.ts';
import { type RetryPolicy, trimLog, type WebhookBusiness, webhookEnvelope, WebhookSender } from './webhooks.ts';

/** A business number the simulator serves, with where its webhooks go when not to the default address. */
export interface BusinessNumber {
  /** The display number, international digits (972501234567). */
  number: string;
  phoneNumberId: string;
  wabaId?: string;
  webhookUrl?: string;
  appSecret?: string;
}

export interface WhatsAppSimulatorSettings {
  /** The bearer token every Graph request must carry. */
  token: string;
  /** The app secret webhooks are signed with (a business's own, when it has one, wins). */
  appSecret: string;
  /** Where webhooks go (a business's own address wins); none: nothing is posted. */
  webhookUrl?: string;
  /** The delay between a message's statuses (sent, delivered, read), ms. */
  statusDelayMs: number;
  /** Whether free-form texts outside the user's 24-hour window fail with 131047 (Meta's rule). */
  window: boolean;
  retry: RetryPolicy;
  businesses: BusinessNumber[];
}

/** Who a send is addressed to: a phone number (`to`) or a business-scoped user id (`recipient`). */
export type Addressee = { phone: string } | { userId: string };

/** What a send carries: a text, or an approved template with its variables. */
export type SendContent =
  | { type: 'text'; body: string }
  | { type: 'template'; template: SimulatedTemplate; variables: string[] };

/** One message the simulator took, as `yona sim messages --channel whatsapp` lists it. */
export interface SentWhatsAppMessage {
  id: string;
  /** The business number it came from, and its phone number id. */
  business: string;
  phoneNumberId: string;
  /** The user's phone number (also when the business addressed it by BSUID) and BSUID. */
  waId: string;
  userId: string;
  type: 'text' | 'template';
  /** The text, or the template's body with its variables filled. */
  text: string;
  template?: { name: string; language: string; variables: string[] };
  /** Pricing category: marketing, utility, authentication or service. */
  category: string;
  acceptedAt: number;
  /** The scripted outcome it got (read, no-whatsapp, throttled-twice, ...). */
  outcome: string;
  /** How many sends were refused before this one was taken. */
  refusedBefore: number;
  /** The statuses reported so far, in the order they went out. */
  statuses: Array<{ status: string; at: number; errorCode?: number }>;
}

/** A send's answer: the message taken, or the error Graph answers (HTTP 400). */
export type SendAnswer =
  | { ok: true; message: SentWhatsAppMessage; input: string; user: SimulatedUser }
  | { ok: false; error: MetaError; httpStatus: number };

/** A user's message to the business, as `yona sim mo --channel whatsapp` sends it. */
export interface InboundRequest {
  from: string;
  to: string;
  text: string;
  name?: string;
  /** The user withholds its phone number: the webhook carries its BSUID alone. */
  bsuidOnly?: boolean;
}

export interface InboundAnswer {
  id: string;
  userId: string;
  waId?: string;
  /** Whether the business's webhook answered 2xx at the first attempt (retries go on otherwise). */
  delivered: boolean;
  /** Where it was posted (none: no webhook address is set). */
  webhookUrl?: string;
}

const WINDOW_MS = 24 * 60 * 60 * 1000;
const MESSAGE_LOG_LIMIT = 100_000;

const seconds = (ms: number) => String(Math.floor(ms / 1000));

/** Message ids shaped like Meta's: `wamid.` and a base64 token naming the user. */
function wamid(waId: string): string {
  return `wamid.${Buffer.from(`${waId}.${randomBytes(12).toString('hex').toUpperCase()}`).toString('base64')}`;
}

export class WhatsAppSimulator {
  readonly templates = new TemplateLibrary();
  readonly users = new UserDirectory();
  readonly webhooks: WebhookSender;
  private readonly byPhoneNumberId = new Map<string, BusinessNumber>();
  private readonly byNumber = new Map<string, BusinessNumber>();
  private readonly windows = new Map<string, number>();
  private readonly refusals = new Map<string, number>();
  private readonly sent: SentWhatsAppMessage[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly counts = { accepted: 0, refused: 0, inbound: 0 };

  constructor(readonly settings: WhatsAppSimulatorSettings) {
    this.webhooks = new WebhookSender(settings.retry);
    for (const business of settings.businesses) this.addBusiness(business);
  }

  /** Registers a business number (its phone number id, account id, own webhook address and secret). */
  addBusiness(business: BusinessNumber): void {
    this.byPhoneNumberId.set(business.phoneNumberId, business);
    this.byNumber.set(business.number, business);
  }

  /**
   * The business of a phone number id. One never registered is served too: its display number is then its phone
   * number id, so a carrier whose phone number id is its business number needs no registration.
   */
  businessOfId(phoneNumberId: string): BusinessNumber {
    return this.byPhoneNumberId.get(phoneNumberId) ?? { number: phoneNumberId, phoneNumberId };
  }

  /** The business of a display number (registered, else one whose phone number id is that number). */
  businessOfNumber(number: string): BusinessNumber {
    const digits = waIdOf(number);
    return this.byNumber.get(digits) ?? { number: digits, phoneNumberId: digits };
  }

  /** Sets the default webhook address (and app secret). */
  setWebhook(url: string | undefined, appSecret?: string): void {
    this.settings.webhookUrl = url;
    if (appSecret !== undefined) this.settings.appSecret = appSecret;
  }

  setStatusDelay(ms: number): void {
    this.settings.statusDelayMs = ms;
  }

  /** Takes a send or refuses it by the recipient's scripted outcome. */
  send(phoneNumberId: string, to: Addressee, content: SendContent): SendAnswer {
    const business = this.businessOfId(phoneNumberId);
    let user: SimulatedUser;
    let input: string;
    if ('userId' in to) {
      const known = this.users.ofUserId(to.userId);
      if (!known)
        return {
          ok: false,
          httpStatus: 400,
          error: { code: 100, title: 'Invalid parameter', details: `recipient ${to.userId} is not a known user id` },
        };
      user = known;
      input = to.userId;
    } else {
      user = this.users.ofPhone(waIdOf(to.phone));
      input = to.phone;
    }
    const scripted = outcomeFor(user.waId);
    const refusedBefore = this.refusals.get(user.waId) ?? 0;
    if (scripted.refusals && refusedBefore < scripted.refusals.times) {
      this.refusals.set(user.waId, refusedBefore + 1);
      this.counts.refused++;
      return { ok: false, httpStatus: 400, error: scripted.refusals.error };
    }
    this.refusals.delete(user.waId);
    const outsideWindow = content.type === 'text' && this.settings.window && !this.windowOpen(business, user);
    const outcome: Outcome = outsideWindow ? OUTSIDE_WINDOW : scripted;
    const message: SentWhatsAppMessage = {
      id: wamid(user.waId),
      business: business.number,
      phoneNumberId: business.phoneNumberId,
      waId: user.waId,
      userId: user.userId,
      type: content.type,
      ...(content.type === 'text'
        ? { text: content.body, category: 'service' }
        : {
            text: renderTemplate(content.template.body, content.variables),
            template: {
              name: content.template.name,
              language: content.template.language,
              variables: content.variables,
            },
            category: content.template.category.toLowerCase(),
          }),
      acceptedAt: Date.now(),
      outcome: outcome.name,
      refusedBefore,
      statuses: [],
    };
    this.sent.push(message);
    trimLog(this.sent, MESSAGE_LOG_LIMIT);
    this.counts.accepted++;
    // A message's statuses go out in their order: each at its step, and not before the receiver answered the
    // post of the one before it (concurrent posts over several connections could arrive the other way round).
    let previous: Promise<unknown> = Promise.resolve();
    for (const planned of outcome.statuses) {
      const due = new Promise<void>((resolve) => this.later(planned.step, resolve));
      previous = Promise.all([previous, due]).then(() => this.report(business, user, message, planned, 'userId' in to));
    }
    return { ok: true, message, input, user };
  }

  /** A user writes to the business: its window opens and the business's webhook gets the message. */
  async inbound(request: InboundRequest): Promise<InboundAnswer> {
    const business = this.businessOfNumber(request.to);
    const user = this.users.ofPhone(waIdOf(request.from));
    if (request.name) user.name = request.name;
    user.phoneHidden = request.bsuidOnly === true;
    user.username = user.phoneHidden ? `@user${user.waId.slice(-4)}` : undefined;
    const now = Date.now();
    this.windows.set(`${business.phoneNumberId}|${user.waId}`, now);
    this.counts.inbound++;
    const id = wamid(user.waId);
    const value = {
      contacts: [
        {
          profile: { name: user.name, ...(user.username ? { username: user.username } : {}) },
          ...(user.phoneHidden ? {} : { wa_id: user.waId }),
          user_id: user.userId,
        },
      ],
      messages: [
        {
          ...(user.phoneHidden ? {} : { from: user.waId }),
          from_user_id: user.userId,
          id,
          timestamp: seconds(now),
          type: 'text',
          text: { body: request.text },
        },
      ],
    };
    const target = this.webhookOf(business);
    const delivered = target
      ? await this.webhooks.send(target.url, target.secret, webhookEnvelope(this.envelopeBusiness(business), value), {
          kind: 'message',
          messageId: id,
        })
      : false;
    return {
      id,
      userId: user.userId,
      ...(user.phoneHidden ? {} : { waId: user.waId }),
      delivered,
      webhookUrl: target?.url,
    };
  }

  /** The messages taken, oldest first, optionally those to one user (phone number or BSUID). */
  messages(to?: string): SentWhatsAppMessage[] {
    if (!to) return [...this.sent];
    const key = waIdOf(to);
    return this.sent.filter((m) => m.waId === key || m.userId === to);
  }

  stats(): Record<string, number> {
    return { ...this.counts, webhooks: this.webhooks.deliveries().length, retriesWaiting: this.webhooks.pending() };
  }

  /** Stops every timer: no status nor retry goes out after this. */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.webhooks.close();
  }

  private windowOpen(business: BusinessNumber, user: SimulatedUser): boolean {
    const last = this.windows.get(`${business.phoneNumberId}|${user.waId}`);
    return last !== undefined && Date.now() - last < WINDOW_MS;
  }

  private later(steps: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, steps * this.settings.statusDelayMs);
    this.timers.add(timer);
  }

  private webhookOf(business: BusinessNumber): { url: string; secret: string } | undefined {
    const url = business.webhookUrl ?? this.settings.webhookUrl;
    return url ? { url, secret: business.appSecret ?? this.settings.appSecret } : undefined;
  }

  private envelopeBusiness(business: BusinessNumber): WebhookBusiness {
    return {
      number: business.number,
      phoneNumberId: business.phoneNumberId,
      wabaId: business.wabaId ?? business.phoneNumberId,
    };
  }

  // One status webhook: Meta's status object (with pricing and conversation while the message is billable, the
  // error when it failed) and, but for a failure, the user's contact (wa_id unless withheld, and BSUID).
  private report(
    business: BusinessNumber,
    user: SimulatedUser,
    message: SentWhatsAppMessage,
    planned: PlannedStatus,
    byUserId: boolean,
  ): Promise<boolean> | undefined {
    const now = Date.now();
    message.statuses.push({
      status: planned.status,
      at: now,
      ...(planned.error ? { errorCode: planned.error.code } : {}),
    });
    const failed = planned.status === 'failed';
    const billable = message.type === 'template';
    const status: Record<string, unknown> = {
      id: message.id,
      status: planned.status,
      timestamp: seconds(now),
      recipient_id: user.phoneHidden ? user.userId : user.waId,
      ...(failed && !byUserId ? {} : { recipient_user_id: user.userId }),
    };
    if (planned.status === 'sent' || planned.status === 'delivered') {
      status.conversation = {
        id: conversationId(business, user, message.category),
        ...(planned.status === 'sent' ? { expiration_timestamp: seconds(now + WINDOW_MS) } : {}),
        origin: { type: message.category },
      };
      status.pricing = {
        billable,
        pricing_model: 'PMP',
        category: message.category,
        type: billable ? 'regular' : 'free_customer_service',
      };
    }
    if (planned.error)
      status.errors = [
        {
          code: planned.error.code,
          title: planned.error.title,
          message: planned.error.title,
          error_data: { details: planned.error.details },
          href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
        },
      ];
    const value: Record<string, unknown> = { statuses: [status] };
    if (!failed) value.contacts = [{ ...(user.phoneHidden ? {} : { wa_id: user.waId }), user_id: user.userId }];
    const target = this.webhookOf(business);
    return target
      ? this.webhooks.send(target.url, target.secret, webhookEnvelope(this.envelopeBusiness(business), value), {
          kind: 'status',
          messageId: message.id,
          status: planned.status,
        })
      : undefined;
  }
}

// A conversation's id: the same for a business, a user and a category.
function conversationId(business: BusinessNumber, user: SimulatedUser, category: string): string {
  return Buffer.from(`${business.phoneNumberId}|${user.userId}|${category}`).toString('hex').slice(0, 32);
}

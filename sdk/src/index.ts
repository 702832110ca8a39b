// @yona/sdk: a typed client of the Yona messaging API. One method per operation of the OpenAPI document
// (`yona.sms(...)`, `yona.dlr(...)`...), each taking that operation's request and answering its success reply;
// a reply whose status is not one of the operation's success codes is thrown as a YonaError. Types and the
// table of success codes are generated from /openapi.json into ./generated/openapi.ts (`npm run sdk:types`).
import createClient from 'openapi-fetch';
import { type ErrorReply, YonaError } from './errors.js';
import { type components, operations, type paths } from './generated/openapi.js';

export { reportWindow } from './dates.js';
export { type ErrorReply, YonaError } from './errors.js';
export type { components, paths } from './generated/openapi.js';
export { type PushHeaders, type VerifyOptions, verifyPushSignature } from './push.js';

type Schemas = components['schemas'];
/** Every root element the API answers (`sms`, `dlrByDate`, `send_otp`...). */
export type OperationName = keyof typeof operations;
/** The operations that take an Idempotency-Key. */
export type IdempotentOperation = {
  [Op in OperationName]: (typeof operations)[Op]['idempotent'] extends true ? Op : never;
}[OperationName];
/** The content of an operation's root element, as the OpenAPI document describes it. */
export type RequestOf<Op extends OperationName> = `${Op}Request` extends keyof Schemas
  ? Schemas[`${Op}Request`]
  : never;
/** An operation's success reply. */
export type ReplyOf<Op extends OperationName> = `${Op}Reply` extends keyof Schemas ? Schemas[`${Op}Reply`] : never;
/** What a method takes: the request without `user`, which defaults to the client's username. */
export type ParamsOf<Op extends OperationName> = Omit<RequestOf<Op>, 'user'> & {
  user?: RequestOf<Op> extends { user: infer U } ? U : never;
};

export interface CallOptions {
  /** POST to /api/test: checked (parsed, authenticated, permission-checked) and nothing is done. */
  dryRun?: boolean;
  signal?: AbortSignal;
}
/** Call options; `idempotencyKey` (sent as the Idempotency-Key header) on the operations that take one. */
export type OptionsOf<Op extends OperationName> = CallOptions &
  (Op extends IdempotentOperation ? { idempotencyKey?: string } : {});
/** A method's arguments: the params may be left out when none is required. */
export type ArgsOf<Op extends OperationName> =
  {} extends ParamsOf<Op>
    ? [params?: ParamsOf<Op>, options?: OptionsOf<Op>]
    : [params: ParamsOf<Op>, options?: OptionsOf<Op>];
type Method<Op extends OperationName> = (...args: ArgsOf<Op>) => Promise<ReplyOf<Op>>;

export interface YonaOptions {
  /** Where the service answers, e.g. `https://sms.example.com` (without /api). */
  baseUrl: string;
  /** An API token (yona admin create-token, the console, or getApiToken). */
  token: string;
  /** The account calls act for (`user.username`); a reseller may name a sub-account per call with `user`. */
  username: string;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
}

export class Yona {
  readonly #client: ReturnType<typeof createClient<paths>>;
  readonly #username: string;

  constructor(options: YonaOptions) {
    this.#username = options.username;
    this.#client = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: { authorization: `Bearer ${options.token}` },
      fetch: options.fetch,
    });
  }

  /** Calls any operation by its root element name; answers its success reply or throws a YonaError. */
  async call<Op extends OperationName>(operation: Op, ...[params, options]: ArgsOf<Op>): Promise<ReplyOf<Op>> {
    const opts = (options ?? {}) as CallOptions & { idempotencyKey?: string };
    const body = { [operation]: { user: { username: this.#username }, ...params } };
    const header = opts.idempotencyKey === undefined ? {} : { 'Idempotency-Key': opts.idempotencyKey };
    const { data, error, response } = await this.#client.POST(opts.dryRun ? '/api/test' : '/api', {
      body: body as never,
      params: { header } as never,
      signal: opts.signal,
    });
    const reply = (data ?? error) as { status?: unknown; message?: unknown } | string | null | undefined;
    if (!response.ok || typeof reply !== 'object' || reply === null || typeof reply.status !== 'number') {
      const text = typeof reply === 'string' ? reply : JSON.stringify(reply ?? '');
      throw new YonaError(operation, response.status, text || response.statusText, response.status);
    }
    const success: readonly number[] = operations[operation].success;
    if (!success.includes(reply.status))
      throw new YonaError(operation, reply.status, String(reply.message ?? ''), response.status, reply as ErrorReply);
    return reply as ReplyOf<Op>;
  }

  #method<Op extends OperationName>(operation: Op): Method<Op> {
    return (...args) => this.call(operation, ...args);
  }

  // Accounts and tokens
  readonly getApiToken = this.#method('getApiToken');
  readonly balance = this.#method('balance');
  // Sending and campaigns
  readonly sms = this.#method('sms');
  readonly bulk = this.#method('bulk');
  readonly cancel = this.#method('cancel');
  readonly verify_phone = this.#method('verify_phone');
  readonly getVerifiedPhones = this.#method('getVerifiedPhones');
  // Reports and pushes
  readonly dlr = this.#method('dlr');
  readonly dlrByDate = this.#method('dlrByDate');
  readonly incoming = this.#method('incoming');
  readonly push_url = this.#method('push_url');
  // One-time codes
  readonly send_otp = this.#method('send_otp');
  readonly validate_otp = this.#method('validate_otp');
  // WhatsApp (the operations behind 019's /whatsapp-api endpoints)
  readonly send_whatsapp_message = this.#method('send_whatsapp_message');
  readonly send_whatsapp_template = this.#method('send_whatsapp_template');
  readonly get_phone_templates = this.#method('get_phone_templates');
  readonly send_otp_whatsapp = this.#method('send_otp_whatsapp');
  // Contact lists
  readonly newCL = this.#method('newCL');
  readonly removeCL = this.#method('removeCL');
  readonly addNumCL = this.#method('addNumCL');
  readonly rmNumCL = this.#method('rmNumCL');
  readonly getCL = this.#method('getCL');
  readonly getCLbyID = this.#method('getCLbyID');
  // Blocklist
  readonly blacklist = this.#method('blacklist');
  readonly addNumBL = this.#method('addNumBL');
  readonly rmNumBL = this.#method('rmNumBL');
  // Birthday campaigns
  readonly new_birthday_campaign = this.#method('new_birthday_campaign');
  readonly get_birthday_campaigns = this.#method('get_birthday_campaigns');
  readonly edit_birthday_campaign = this.#method('edit_birthday_campaign');
  // Sub-accounts (resellers)
  readonly addSub = this.#method('addSub');
  readonly updateAmountSub = this.#method('updateAmountSub');
  readonly getBlanceSubs = this.#method('getBlanceSubs');
}

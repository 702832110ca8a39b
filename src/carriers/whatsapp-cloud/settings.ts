// A WhatsApp Cloud API carrier's settings: one business number of a WhatsApp Business Account, reached through
// Meta's Graph API. The schema of its carriers-file entry and of its stored settings document (`yona admin
// add-carrier --protocol whatsapp-cloud`); `token` and `appSecret` are secrets (sealed in the store).
import { z } from 'zod';
import type { CarrierConfigBase } from '../types.ts';

/** Meta's default throughput of a business number (messages per second), and the most it can be raised to. */
export const DEFAULT_MESSAGES_PER_SECOND = 80;
export const MAX_MESSAGES_PER_SECOND = 1000;
/** The Graph API a carrier speaks unless its settings say otherwise. */
export const DEFAULT_GRAPH_URL = 'https://graph.facebook.com';
export const DEFAULT_GRAPH_VERSION = 'v21.0';

const digits = z.string().regex(/^\d{8,15}$/, 'international digits without +, like 972771234567');
const id = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ or -');

/** One WhatsApp Cloud API carrier, as the carriers file and the settings document write it. */
export const whatsappFileCarrier = z
  .object({
    protocol: z.literal('whatsapp-cloud'),
    name: z.string().min(1),
    businessNumber: digits,
    phoneNumberId: id,
    wabaId: id,
    token: z.string().min(1),
    appSecret: z.string().min(1),
    verifyToken: z.string().min(1),
    graphUrl: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), 'an http or https address')
      .default(DEFAULT_GRAPH_URL),
    graphVersion: z
      .string()
      .regex(/^v\d+\.\d+$/)
      .default(DEFAULT_GRAPH_VERSION),
    /** Messages per second from this business number, over every node (Meta: 80, raised up to 1,000). */
    messagesPerSecond: z.number().int().min(1).max(MAX_MESSAGES_PER_SECOND).default(DEFAULT_MESSAGES_PER_SECOND),
    /** Messages to one user: one every `userIntervalMs` on average, `userBurst` at once at most. */
    userIntervalMs: z.number().int().min(0).max(600_000).default(6000),
    userBurst: z.number().int().min(1).max(100).default(5),
    /** Sends from any business number of the account (a simulator's carrier), not only `businessNumber`. */
    anyBusinessNumber: z.boolean().default(false),
    /** Sends this node may have unanswered at once. */
    inFlight: z.number().int().min(1).max(10_000).default(200),
    /** How long one Graph request may take. */
    requestTimeoutMs: z.number().int().min(100).max(120_000).default(15_000),
  })
  .strict();

/** A WhatsApp Cloud API carrier's config. */
export type WhatsappCarrierConfig = CarrierConfigBase & z.output<typeof whatsappFileCarrier>;

/** The config of a carriers-file entry or settings document, as the schema read it. */
export function whatsappConfigFromFile(entry: z.output<typeof whatsappFileCarrier>): WhatsappCarrierConfig {
  return { ...entry, graphUrl: entry.graphUrl.replace(/\/+$/, '') };
}

/** Units of a business number's rate that nodes share out through leases (each holds rate x held / SHARES). */
export const RATE_SHARES = 10;

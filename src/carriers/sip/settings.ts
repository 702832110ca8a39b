// A voice trunk's settings as an operator writes them in the carriers file (`"protocol": "sip"`).
import { z } from 'zod';
import type { SipTrunkConfig } from './connector.ts';

const positive = z.number().int().positive();

/** One SIP trunk in the carriers file (camelCase keys). */
export const sipFileTrunk = z
  .object({
    protocol: z.literal('sip'),
    name: z.string().min(1),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(5060),
    transport: z.enum(['udp', 'tcp']).default('udp'),
    /** The system number calls come from. */
    callerId: z.string().regex(/^\+?\d{3,15}$/, 'callerId must be a phone number'),
    domain: z.string().min(1).optional(),
    username: z.string().min(1).optional(),
    password: z.string().optional(),
    /** The address this host's SIP and RTP sockets bind to and announce in SDP. */
    localIp: z.string().min(1).default('127.0.0.1'),
    maxCalls: positive.default(10),
    callsPerSecond: z.number().min(0).default(0),
    ringTimeoutMs: positive.default(30_000),
    /** How often an OPTIONS request checks the trunk (0: never). */
    optionsIntervalMs: z.number().int().min(0).default(30_000),
  })
  .strict();

/** A file trunk's settings with the defaults filled in. */
export function sipConfigFromFile(entry: z.output<typeof sipFileTrunk>): SipTrunkConfig {
  return { ...entry, callerId: entry.callerId.replace(/^\+/, '') };
}

// The channels Yona sends on, as data: each is one entry here (its name, what its messages carry, how they are
// priced, what its receipts report, which node role runs its carriers). Protocols (carriers/index.ts) name the
// channel they carry; routing, the dispatcher, the CLI and the send path ask this registry instead of spelling
// channels out. A new channel is one `registerChannel` call and a protocol that names it.
import type { Role } from './roles.ts';

/** A channel's name ('sms', 'voice', ...): any registered one; `isChannel` tells. */
export type ChannelName = string;

/** What a channel's messages carry to its carriers (carriers/types.ts OutboundMessage). */
export type PayloadKind =
  /** The message's text, sent as it is (SMS). */
  | 'text'
  /** The text spoken in a call (voice). */
  | 'speech'
  /** A template the provider approved, with its parameters (a WhatsApp-like channel). */
  | 'template';

/** What a channel's receipts may report of a message. */
export type ReceiptKind =
  /** Delivered, or failed for good, with our delivery status. */
  | 'delivery'
  /** A state on the way (accepted, en route). */
  | 'intermediate'
  /** An answered call and how long its message played. */
  | 'duration'
  /** The carrier did not carry it after all (a call never placed): refunded. */
  | 'not-placed'
  /** The recipient read it. */
  | 'read';

/** One channel. */
export interface Channel {
  name: ChannelName;
  payload: PayloadKind;
  /** The key of its price rule (SMS parts, call minutes, ...), read by the pricing of a send. */
  pricing: string;
  receipts: readonly ReceiptKind[];
  /** The node role that runs its carriers (holds their shares and submits to them). */
  role: Role;
  /**
   * What its messages' rows say in `messages.channel` (voice: 'call', as the rows written before channels were
   * data say); the dispatcher's text lanes claim the rows of every channel its role runs but voice's call lane.
   */
  stored: string;
  /** What its carriers and messages are called ('SMS carrier', 'carriers', 'texts'), in messages to people. */
  nouns: { carrier: string; carriers: string; messages: string };
}

const CHANNELS = new Map<ChannelName, Channel>();
const BY_STORED = new Map<string, Channel>();
let storedByRole = new Map<Role, string[]>();

/** The channel of a protocol that names none, and of a route or message that names none. */
export const DEFAULT_CHANNEL: ChannelName = 'sms';

/** Adds a channel (the one call a new channel needs). */
export function registerChannel(channel: Channel): void {
  CHANNELS.set(channel.name, channel);
  BY_STORED.set(channel.stored, channel);
  const byRole = new Map<Role, string[]>();
  for (const c of CHANNELS.values()) byRole.set(c.role, [...(byRole.get(c.role) ?? []), c.stored]);
  storedByRole = byRole;
}

registerChannel({
  name: 'sms',
  payload: 'text',
  pricing: 'sms-parts',
  receipts: ['delivery', 'intermediate'],
  role: 'dispatcher',
  stored: 'sms',
  nouns: { carrier: 'SMS carrier', carriers: 'carriers', messages: 'texts' },
});

registerChannel({
  name: 'voice',
  payload: 'speech',
  pricing: 'call-minutes',
  receipts: ['delivery', 'duration', 'not-placed'],
  role: 'voice',
  stored: 'call',
  nouns: { carrier: 'voice trunk', carriers: 'trunks', messages: 'calls' },
});

registerChannel({
  name: 'whatsapp',
  // A template the provider approved; inside the customer's 24-hour window a message may be free text instead
  // (OutboundMessage.text with no template).
  payload: 'template',
  pricing: 'whatsapp-category',
  receipts: ['delivery', 'intermediate', 'read'],
  role: 'dispatcher',
  stored: 'whatsapp',
  nouns: { carrier: 'WhatsApp business number', carriers: 'WhatsApp business numbers', messages: 'WhatsApp messages' },
});

/** Whether `name` is a registered channel. */
export function isChannel(name: string): name is ChannelName {
  return CHANNELS.has(name);
}

/** The registered channel of this name; throws for one nobody registered (a programming error). */
export function channelOf(name: ChannelName): Channel {
  const channel = CHANNELS.get(name);
  if (!channel) throw new Error(`unknown channel "${name}" (known: ${channelNames().join(', ')})`);
  return channel;
}

/** Every registered channel's name, in registration order. */
export function channelNames(): ChannelName[] {
  return [...CHANNELS.keys()];
}

/** The channel of a message row (`messages.channel`); the default channel for a value no channel stores. */
export function channelOfStored(stored: string): ChannelName {
  return BY_STORED.get(stored)?.name ?? DEFAULT_CHANNEL;
}

/** The `messages.channel` values of the channels whose carriers this role runs. */
export function storedChannelsOf(role: Role): readonly string[] {
  return storedByRole.get(role) ?? [];
}

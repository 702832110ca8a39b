// The margins report as figures, shared by `yona admin report margins` and /admin/margins: what carriers took
// (messages, parts), what the accounts were charged for it (credits, valued at a price the operator gives, and
// international agorot) and what the carriers charge, summed per account, per reseller with its sub-accounts,
// per channel and in all. Sums are kept in thousandths of an agora so that prices with fractions of an agora add
// up exactly.

/** What a set of messages adds up to. */
export interface MarginSums {
  messages: number;
  parts: number;
  /** Domestic credits charged, net of refunds. */
  credits: number;
  /** International agorot charged, net of refunds. */
  agorot: number;
  /** What the carriers charge, thousandths of an agora. */
  costMilli: number;
  /** Messages taken by a carrier with no price (no carrier cost recorded). */
  unpriced: number;
}

/** One account's traffic in a span. */
export interface AccountTraffic extends MarginSums {
  accountId: number;
  username: string;
  /** The reseller's username, for a sub-account. */
  reseller: string | null;
  isReseller: boolean;
}

/** One line of the report: an account, a reseller's group, a channel, a month or the total. */
export interface MarginLine {
  messages: number;
  parts: number;
  charged_credits: number;
  charged_international_agorot: number;
  /** The credits at the credit price plus the international money, agorot. */
  charged_agorot: number;
  carrier_cost_agorot: number;
  margin_agorot: number;
  /** Messages whose carrier has no costPerPart (their carrier cost counts as 0). */
  unpriced_messages: number;
}

export interface MarginReport {
  accounts: Array<{ username: string; reseller: string | null } & MarginLine>;
  resellers: Array<{ reseller: string; accounts: number } & MarginLine>;
  channels: Array<{ channel: string } & MarginLine>;
  total: MarginLine;
}

export const NO_SUMS: MarginSums = { messages: 0, parts: 0, credits: 0, agorot: 0, costMilli: 0, unpriced: 0 };

export function plusSums(a: MarginSums, b: MarginSums): MarginSums {
  return {
    messages: a.messages + b.messages,
    parts: a.parts + b.parts,
    credits: a.credits + b.credits,
    agorot: a.agorot + b.agorot,
    costMilli: a.costMilli + b.costMilli,
    unpriced: a.unpriced + b.unpriced,
  };
}

function sumsOf(s: MarginSums): MarginSums {
  return plusSums(NO_SUMS, s);
}

/** A line of sums, with credits valued at `creditMilli` thousandths of an agora each. */
export function marginLine(s: MarginSums, creditMilli: number): MarginLine {
  const chargedMilli = s.agorot * 1000 + s.credits * creditMilli;
  return {
    messages: s.messages,
    parts: s.parts,
    charged_credits: s.credits,
    charged_international_agorot: s.agorot,
    charged_agorot: chargedMilli / 1000,
    carrier_cost_agorot: s.costMilli / 1000,
    margin_agorot: (chargedMilli - s.costMilli) / 1000,
    unpriced_messages: s.unpriced,
  };
}

/**
 * The report: top-level accounts by name, each reseller followed by its sub-accounts (and its group's sum in
 * `resellers`), the channels by name, and the total.
 */
export function marginReport(
  traffic: AccountTraffic[],
  channels: Array<{ channel: string } & MarginSums>,
  creditMilli: number,
): MarginReport {
  const subsOf = new Map<string, AccountTraffic[]>();
  for (const t of traffic) {
    if (t.reseller === null) continue;
    subsOf.set(t.reseller, [...(subsOf.get(t.reseller) ?? []), t]);
  }
  const byName = (a: AccountTraffic, b: AccountTraffic) => a.username.localeCompare(b.username);
  const top = traffic.filter((t) => t.reseller === null).sort(byName);
  let total = NO_SUMS;
  const accounts: MarginReport['accounts'] = [];
  const resellers: MarginReport['resellers'] = [];
  for (const t of top) {
    accounts.push({ username: t.username, reseller: null, ...marginLine(sumsOf(t), creditMilli) });
    let group = sumsOf(t);
    const subs = (subsOf.get(t.username) ?? []).sort(byName);
    for (const sub of subs) {
      accounts.push({ username: sub.username, reseller: t.username, ...marginLine(sumsOf(sub), creditMilli) });
      group = plusSums(group, sumsOf(sub));
    }
    if (subs.length > 0)
      resellers.push({ reseller: t.username, accounts: subs.length + 1, ...marginLine(group, creditMilli) });
    total = plusSums(total, group);
  }
  return {
    accounts,
    resellers,
    channels: [...channels]
      .sort((a, b) => a.channel.localeCompare(b.channel))
      .map((c) => ({ channel: c.channel, ...marginLine(sumsOf(c), creditMilli) })),
    total: marginLine(total, creditMilli),
  };
}

/** Whether an account line is the last of its reseller's group (the group's sum follows it). */
export function closesGroup(report: MarginReport, index: number): string | undefined {
  const a = report.accounts[index];
  if (a.reseller === null) return undefined;
  return report.accounts[index + 1]?.reseller !== a.reseller ? a.reseller : undefined;
}

/** A credit price typed by the operator (agorot, at most three decimals) in thousandths of an agora; null if malformed. */
export function parseCreditPrice(text: string): number | null {
  return /^\d{1,7}(\.\d{1,3})?$/.test(text) ? Math.round(Number(text) * 1000) : null;
}

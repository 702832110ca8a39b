// Links in a message (`links.link` with attribute `id`): target validation and placing short links where
// the message says `[id]` (or `[link-id]`).

/** Longest target URL we shorten. */
export const MAX_LINK_TARGET = 2048;

/** Why a link target cannot be shortened (status 980), or null when it is an absolute http(s) URL. */
export function linkTargetProblem(target: string): string | null {
  if (target.length > MAX_LINK_TARGET) return `link is longer than ${MAX_LINK_TARGET} characters`;
  if (/\s/.test(target)) return 'link contains white space';
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return `link is not an absolute URL: "${target}"`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `link must be http or https: "${target}"`;
  if (!url.hostname) return `link has no host: "${target}"`;
  return null;
}

/** True when the target is itself a short link of this service (shortening it would loop; status 981). */
export function isOwnShortLink(target: string, publicUrl: string): boolean {
  return (
    target.startsWith(`${publicUrl}/l/`) || target.startsWith(`${publicUrl}/u/`) || target.startsWith(`${publicUrl}/v/`)
  );
}

/** Link keys may hold letters, digits, '_' and '-' (they are written inside brackets in the message). */
export function linkKeyProblem(key: string): string | null {
  if (key === '') return 'link is missing its id attribute';
  if (!/^[A-Za-z0-9_-]{1,50}$/.test(key))
    return `link id may hold only letters, digits, _ and - (at most 50): "${key}"`;
  return null;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces `[key]` and `[link-key]` in the message with each link's URL. */
export function placeLinks(message: string, urls: ReadonlyMap<string, string>): string {
  if (urls.size === 0) return message;
  const keys = [...urls.keys()].map(escapeRegExp).join('|');
  const pattern = new RegExp(`\\[(?:link-)?(${keys})\\]`, 'g');
  return message.replace(pattern, (_m, key: string) => urls.get(key) ?? _m);
}

/**
 * Why a message's placeholders and its links do not match (status 980), or null: a `[link-x]` with no link
 * `x`, or a link the message never places. A bare `[x]` is a placeholder only for a given link `x` (other
 * bracketed words are text or dynamic fields).
 */
export function linkPlaceholderProblem(message: string, keys: readonly string[]): string | null {
  if (keys.length === 0 && !message.includes('[link-')) return null; // most sends: no links, nothing to scan
  const known = new Set(keys);
  for (const [whole, key] of message.matchAll(/\[link-([^\]\s]*)\]/g)) {
    if (!known.has(key) && !known.has(`link-${key}`))
      return `the message has ${whole} but no link with id "${key}" was given`;
  }
  for (const key of keys) {
    if (!message.includes(`[${key}]`) && !message.includes(`[link-${key}]`)) {
      return `link "${key}" is never placed in the message: write [link-${key}] where it goes`;
    }
  }
  return null;
}

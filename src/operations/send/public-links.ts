// A text carrying a link of this service (a short link, a removal link, a verification link) is refused when
// YONA_PUBLIC_URL, the links' base, is not an address a recipient's phone can open (its default is
// https://localhost:PORT) and the text would go to a live carrier, not the bundled simulator.
import { ApiError } from '../../domain/errors.ts';
import { localPublicUrlReason } from '../../domain/public-url.ts';
import type { OperationContext } from '../types.ts';

/** Throws 981 naming YONA_PUBLIC_URL when links of this service in a text would reach nobody (above). */
export async function requireOpenableLinks(ctx: OperationContext, links: string): Promise<void> {
  const reason = localPublicUrlReason(ctx.config.publicUrl);
  if (reason === null) return;
  const carrier = await ctx.liveTextCarrier?.(ctx.db);
  if (carrier === undefined) return;
  throw new ApiError(
    981,
    `Error creating short link: ${links} would point at YONA_PUBLIC_URL ${ctx.config.publicUrl} (${reason}), ` +
      `which recipients of carrier "${carrier}" cannot open; set YONA_PUBLIC_URL to the address the service is reached at`,
  );
}

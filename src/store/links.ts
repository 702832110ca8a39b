// Short links of campaigns (`/l/:code`) and their clicks.
import type { Queryable } from './engine/db.ts';

export interface NewShortLink {
  code: string;
  accountId: number;
  campaignId: number;
  linkKey: string;
  target: string;
  now: number;
}

/** Inserts a campaign's short links. */
export async function insertShortLinks(db: Queryable, links: NewShortLink[]): Promise<void> {
  if (links.length === 0) return;
  await db
    .insertInto('short_links')
    .values(
      links.map((l) => ({
        code: l.code,
        account_id: l.accountId,
        campaign_id: l.campaignId,
        link_key: l.linkKey,
        target: l.target,
        clicks: 0,
        created_at: l.now,
      })),
    )
    .execute();
}

/** Records one click on a short link and returns its target, or undefined for an unknown code. */
export async function recordClick(db: Queryable, code: string, now: number): Promise<string | undefined> {
  const link = await db
    .updateTable('short_links')
    .set((eb) => ({ clicks: eb('clicks', '+', 1) }))
    .where('code', '=', code)
    .returning(['id', 'target'])
    .executeTakeFirst();
  if (!link) return undefined;
  await db.insertInto('link_clicks').values({ short_link_id: link.id, clicked_at: now }).execute();
  return link.target;
}

/** A short link's target without counting a click (a HEAD request), or undefined for an unknown code. */
export async function shortLinkTarget(db: Queryable, code: string): Promise<string | undefined> {
  const link = await db.selectFrom('short_links').select('target').where('code', '=', code).executeTakeFirst();
  return link?.target;
}

/** A campaign's short links with their click counts (for reports and tests). */
export async function campaignLinks(
  db: Queryable,
  campaignId: number,
): Promise<Array<{ code: string; link_key: string; target: string; clicks: number }>> {
  return db
    .selectFrom('short_links')
    .select(['code', 'link_key', 'target', 'clicks'])
    .where('campaign_id', '=', campaignId)
    .orderBy('id')
    .execute();
}

/** When each click on a short link happened, oldest first. */
export async function clickTimes(db: Queryable, code: string): Promise<number[]> {
  const rows = await db
    .selectFrom('link_clicks')
    .innerJoin('short_links', 'short_links.id', 'link_clicks.short_link_id')
    .select('link_clicks.clicked_at')
    .where('short_links.code', '=', code)
    .orderBy('link_clicks.id')
    .execute();
  return rows.map((r) => Number(r.clicked_at));
}

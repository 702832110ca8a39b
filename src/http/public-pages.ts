// Public pages served by Yona itself: short links `/l/:code` (302 to the target, a GET counted as a click,
// a HEAD not), removal links `/u/:code` and sender verification links `/v/:code`. The last two confirm on POST
// only: GET shows a page with a button, so link scanners and previews that fetch the URL do not unsubscribe or
// verify anyone.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { looksLikePublicCode } from '../domain/codes.ts';
import { maskPhone } from '../domain/phone.ts';
import { unsubscribeByCode } from '../operations/block.ts';
import { confirmSenderVerification } from '../operations/senders.ts';
import type { Component, ComponentHost } from '../component.ts';
import { recordClick } from '../store/links.ts';
import { findSenderVerification, findUnsubscribeTarget, shortLinkTarget } from '../store/read-models.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(reply: FastifyReply, code: number, title: string, body: string): FastifyReply {
  const html = `<!doctype html><html lang="he" dir="rtl"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:3rem auto;padding:0 1rem;line-height:1.5}button{font-size:1.1rem;padding:.6rem 1.4rem}</style>
</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return reply
    .code(code)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .send(html);
}

function confirmForm(action: string, label: string): string {
  return `<form method="post" action="${escapeHtml(action)}"><button type="submit">${escapeHtml(label)}</button></form>`;
}

const notFound = (reply: FastifyReply) =>
  page(reply, 404, 'הקישור אינו תקף / Link not valid', '<p>This link is unknown or no longer valid.</p>');

/** Registers the public routes; they read the store through `current()` once the service runs. */
export function registerPublicPages(app: FastifyInstance, current: () => ComponentHost | undefined): void {
  const ready = (reply: FastifyReply): ComponentHost | undefined => {
    const s = current();
    if (!s) void reply.code(503).send('starting');
    return s;
  };

  app.get<{ Params: { code: string } }>('/l/:code', async (request, reply) => {
    const s = ready(reply);
    if (!s) return reply;
    if (!looksLikePublicCode(request.params.code)) return notFound(reply);
    // Fastify answers HEAD with this route too: a HEAD (link previews, scanners) is answered but not counted.
    const target =
      request.method === 'HEAD'
        ? await shortLinkTarget(s.store.db, request.params.code)
        : await recordClick(s.store.db, request.params.code, s.clock());
    if (!target) return notFound(reply);
    return reply.code(302).header('location', target).header('cache-control', 'no-store').send();
  });

  app.get<{ Params: { code: string } }>('/u/:code', async (request, reply) => {
    const s = ready(reply);
    if (!s) return reply;
    const code = request.params.code;
    const target = looksLikePublicCode(code) ? await findUnsubscribeTarget(s.store.db, code) : undefined;
    if (!target) return notFound(reply);
    return page(
      reply,
      200,
      'הסרה מרשימת התפוצה / Unsubscribe',
      `<p>להסיר את המספר ${escapeHtml(maskPhone(target.phone))} מהודעות השולח?</p><p>Stop messages from this sender to ${escapeHtml(maskPhone(target.phone))}?</p>${confirmForm(`/u/${code}`, 'הסירו אותי / Unsubscribe')}`,
    );
  });

  app.post<{ Params: { code: string } }>('/u/:code', async (request, reply) => {
    const s = ready(reply);
    if (!s) return reply;
    const code = request.params.code;
    if (!looksLikePublicCode(code) || !(await unsubscribeByCode(s.store, s.signals, code, s.clock())))
      return notFound(reply);
    return page(
      reply,
      200,
      'הוסרת בהצלחה / Unsubscribed',
      '<p>המספר הוסר ולא יקבל עוד הודעות מהשולח.</p><p>You will not get further messages from this sender.</p>',
    );
  });

  app.get<{ Params: { code: string } }>('/v/:code', async (request, reply) => {
    const s = ready(reply);
    if (!s) return reply;
    const code = request.params.code;
    const v = looksLikePublicCode(code) ? await findSenderVerification(s.store.db, code) : undefined;
    if (!v || v.verified_at !== null || v.expires_at <= s.clock()) return notFound(reply);
    return page(
      reply,
      200,
      'אימות שולח / Verify sender',
      `<p>לאשר את ${escapeHtml(v.source)} כשולח הודעות?</p><p>Confirm ${escapeHtml(v.source)} as a sender?</p>${confirmForm(`/v/${code}`, 'אישור / Confirm')}`,
    );
  });

  app.post<{ Params: { code: string } }>('/v/:code', async (request, reply) => {
    const s = ready(reply);
    if (!s) return reply;
    const code = request.params.code;
    const done = looksLikePublicCode(code) && (await confirmSenderVerification(s.store, code, s.clock()));
    if (!done) return notFound(reply);
    return page(reply, 200, 'השולח אומת / Sender verified', '<p>The number is now a verified sender.</p>');
  });
}

/** The public pages as a service component (routes registered before listening, served once started). */
export function publicPagesComponent(): Component {
  let service: ComponentHost | undefined;
  return {
    name: 'public-pages',
    routes: (app) => registerPublicPages(app, () => service),
    async start(s) {
      service = s;
    },
    async stop() {
      service = undefined;
    },
  };
}

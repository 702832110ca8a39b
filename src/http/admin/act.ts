// How an operator console form acts: one operation through the runner as the signed-in operator (audited there),
// then back to the page with "Done", or the refusal's message on a page of its own (400) with a link back.
import type { FastifyReply } from 'fastify';
import { runForOperator, runOperation } from '../../operations/execute.ts';
import type { Operation, OperatorOperation } from '../../operations/types.ts';
import type { Account } from '../../store/accounts.ts';
import { html } from '../console/html.ts';
import { refusedNotice, type AdminContext } from './router.ts';

function answered(
  c: AdminContext,
  reply: { status: number; message: string },
  back: string,
  success: readonly number[],
) {
  if (success.includes(reply.status)) return c.redirect(back, { ok: 'done' });
  return refuseForm(c, reply.message, back);
}

/** A form refused before or by its operation: the message on a page of its own (400), with a link back. */
export function refuseForm(c: AdminContext, message: string, back: string): FastifyReply {
  return c.render(c.w.refusedTitle, html`<p><a href="${back}">${c.w.back}</a></p>`, {
    code: 400,
    notice: refusedNotice(c.w, message),
  });
}

/** Runs `op` on `account` as the operator, then answers the form. */
export async function actOnAccount(
  c: AdminContext,
  account: Account,
  op: Operation<any, any>,
  doc: Record<string, unknown>,
  back: string,
): Promise<FastifyReply> {
  const reply = await runOperation(c.app, account, op, doc, { via: 'operator' });
  return answered(c, reply, back, op.successStatuses ?? [0]);
}

/** Runs an operator's operation acting on no one account (a new account, a carrier, a route), then answers. */
export async function actAsOperator(
  c: AdminContext,
  op: OperatorOperation<any, any>,
  doc: Record<string, unknown>,
  back: string,
): Promise<FastifyReply> {
  return answered(c, await runForOperator(c.app, op, doc), back, [0]);
}

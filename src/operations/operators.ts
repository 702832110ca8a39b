// The operators of the console at /admin (`yona admin create-operator`), an internal operation of the operator's
// own: a name, a password (hashed with argon2id before the transaction) and a role, 'admin' (changes anything) or
// 'support' (reads every page, changes nothing). The operator enrols an authenticator at the first sign-in.
import { z } from 'zod';
import { passwordProblem, usernameProblem } from '../domain/accounts.ts';
import { ApiError } from '../domain/errors.ts';
import { hashPassword } from '../domain/password.ts';
import { statusMessage } from '../domain/status.ts';
import { insertOperator } from '../store/operators.ts';
import type { OperatorOperation } from './types.ts';

const createOperatorInput = z.object({
  name: z.string(),
  password: z.string(),
  role: z.enum(['admin', 'support']),
});

/** Creates an operator (995 name, 993 password, 994 name taken). */
export const createOperator: OperatorOperation<typeof createOperatorInput, z.ZodObject<{}>> = {
  names: ['createOperator'],
  internal: true,
  input: createOperatorInput,
  reply: z.object({}),
  prepare: async ({ password }) => (passwordProblem(password) ? undefined : hashPassword(password)),
  audit: { subject: (i) => `operator ${i.name}` },
  async handler(ctx, o) {
    const nameIssue = usernameProblem(o.name);
    if (nameIssue) throw new ApiError(995, `Username length is invalid: ${nameIssue}`);
    const passwordIssue = passwordProblem(o.password);
    if (passwordIssue) throw new ApiError(993, `Password length is invalid: ${passwordIssue}`);
    const created = await insertOperator(ctx.db, {
      name: o.name,
      passwordHash: ctx.prepared as string,
      role: o.role,
      now: ctx.now,
    });
    if (!created) throw new ApiError(994, `an operator named "${o.name}" already exists`);
    return { status: 0, message: statusMessage(0) };
  },
};

// A cookie-keeping HTTPS client for the operator console at /admin: signs in with the password and a TOTP code
// (enrolling the secret the first sign-in shows, which it keeps for the next sign-ins).
import { totpCode } from '../../src/domain/totp.ts';
import { ConsoleClient, type ConsoleReply } from './console-client.ts';

/** TOTP secrets enrolled by operator name (shared by every client of a test file). */
export const enrolledSecrets = new Map<string, string>();

export class AdminClient extends ConsoleClient {
  /** The password step: 200 with the code (or enrolment) page, or the refusal. */
  async password(name: string, password: string): Promise<ConsoleReply> {
    await this.get('/admin/login');
    const res = await this.post('/admin/login', { name, password });
    const secret = /id="totp-secret">([A-Z2-7 ]+)</.exec(res.text)?.[1].replace(/ /g, '');
    if (secret) enrolledSecrets.set(name, secret);
    return res;
  }

  /** Both steps, with the code of `at` (the service's clock); answers the code step's reply (303 when signed in). */
  async signIn(name: string, password: string, at: number): Promise<ConsoleReply> {
    const first = await this.password(name, password);
    if (first.status !== 200) return first;
    const secret = enrolledSecrets.get(name);
    if (!secret) throw new Error(`no TOTP secret known for operator ${name}`);
    return this.post('/admin/login/code', { code: totpCode(secret, at) });
  }
}

// The one form an inbound number (a phone or a short code an account receives SMS on) is kept in.
import { normalizePhone } from './phone.ts';

/** An inbound number in the one form account_numbers keeps: international digits for phones, else digits. */
export function normalizeNumber(input: string): string {
  const phone = normalizePhone(input, { allowInternational: true });
  if (phone.ok) return phone.e164;
  return input.replace(/[^\d]/g, '').replace(/^00(?=[1-9])/, '');
}

// Text as a speech engine should read it.

/**
 * Runs of four or more digits (codes, numbers to dial back) are read digit by digit, with a short pause
 * between, instead of as one large number.
 */
export function speakableText(text: string): string {
  return text.replace(/\d{4,}/g, (digits) => digits.split('').join(', '));
}

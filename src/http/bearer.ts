// The bearer token of a request's Authorization header.

/** The bearer token from an Authorization header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return m?.[1];
}

/** Reads the claims of a JWT without verifying it (the server does that); used for `exp`/`iat` only. */
export interface JwtClaims {
  exp?: number;
  iat?: number;
  [k: string]: unknown;
}

export function decodeJwt(token: string): JwtClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const json = Buffer.from(parts[1], 'base64url').toString('utf8');
    const claims: unknown = JSON.parse(json);
    return claims && typeof claims === 'object' ? (claims as JwtClaims) : undefined;
  } catch {
    return undefined;
  }
}

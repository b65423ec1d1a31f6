/** Minimal HS512 JWT signing and parsing (node:crypto), as ThingsBoard's JwtTokenFactory produces them. */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type JwtClaims = Record<string, unknown> & { exp?: number; iat?: number };

const HEADER_B64 = Buffer.from(JSON.stringify({ alg: 'HS512' })).toString('base64url');

export function signJwt(claims: JwtClaims, secret: Buffer): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const input = `${HEADER_B64}.${payload}`;
  const sig = createHmac('sha512', secret).update(input).digest('base64url');
  return `${input}.${sig}`;
}

export type JwtParseResult =
  | { kind: 'ok'; claims: JwtClaims; signature: string }
  | { kind: 'malformed' }
  | { kind: 'badSignature'; claims: JwtClaims; signature: string };

/** Parses and checks the signature; expiry is the caller's business (it owns the clock). */
export function parseJwt(token: string, secret: Buffer): JwtParseResult {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (first <= 0 || second < 0 || token.indexOf('.', second + 1) >= 0) return { kind: 'malformed' };
  const headerPart = token.slice(0, first);
  const payloadPart = token.slice(first + 1, second);
  const signature = token.slice(second + 1);
  let claims: JwtClaims;
  try {
    const header: unknown = JSON.parse(Buffer.from(headerPart, 'base64url').toString('utf8'));
    if (typeof header !== 'object' || header === null) return { kind: 'malformed' };
    const parsed: unknown = JSON.parse(Buffer.from(payloadPart, 'base64url').toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'malformed' };
    claims = parsed as JwtClaims;
  } catch {
    return { kind: 'malformed' };
  }
  if (signature.length === 0) return { kind: 'malformed' };
  const expected = createHmac('sha512', secret).update(`${headerPart}.${payloadPart}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { kind: 'badSignature', claims, signature };
  }
  return { kind: 'ok', claims, signature };
}

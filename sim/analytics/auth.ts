/**
 * Authentication of the analytics simulator: login with the platform's user accounts, HS512 access and refresh
 * tokens with `exp`, refresh, and the checks of `X-Authorization: Bearer <token>`.
 */
import { randomUUID } from 'node:crypto';
import { parseJwt, signJwt, type JwtClaims } from '../jwt';
import type { UserAccount } from '../seed';
import type { AnalyticsCaller } from './views';

export const MSG_BAD_CREDENTIALS = 'Invalid username or password';
export const MSG_NOT_ACTIVE = 'User account is not active';
export const MSG_SYSADMIN = 'System administrators cannot use the analytics service';
export const MSG_NO_TOKEN = 'Authentication failed: no token';
export const MSG_INVALID_TOKEN = 'Invalid token';
export const MSG_EXPIRED = 'Token has expired';
export const MSG_INVALID_REFRESH = 'Invalid refresh token';

/** An authentication failure: `status` 401 (the service may map it to 403). */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthError';
  }
}

export interface TokenPair {
  token: string;
  refreshToken: string;
}

export interface AnalyticsAuthOptions {
  users: readonly UserAccount[] | (() => readonly UserAccount[]);
  now: () => number;
  secret: Buffer;
  tokenLifetimeSec: number;
  refreshLifetimeSec: number;
}

export class AnalyticsAuth {
  /** jti -> issue sequence number */
  private readonly issued = new Map<string, number>();
  private seq = 0;
  private expiredUpTo = 0;
  private readonly revokedRefresh = new Set<string>();
  /** tokens issued (both kinds); for tests */
  issuedCount = 0;

  constructor(private readonly opts: AnalyticsAuthOptions) {}

  setTokenLifetime(sec: number): void {
    this.opts.tokenLifetimeSec = sec;
  }
  setRefreshLifetime(sec: number): void {
    this.opts.refreshLifetimeSec = sec;
  }
  get tokenLifetimeSec(): number {
    return this.opts.tokenLifetimeSec;
  }

  private users(): readonly UserAccount[] {
    const u = this.opts.users;
    return typeof u === 'function' ? u() : u;
  }

  user(email: string): UserAccount | undefined {
    const e = email.trim().toLowerCase();
    return this.users().find((u) => u.email.toLowerCase() === e);
  }

  /** Every access token issued so far is rejected from now on ("Token has expired"). */
  expireAllTokens(): void {
    this.expiredUpTo = this.seq;
  }

  /** Every refresh token issued so far is rejected from now on. */
  revokeRefreshTokens(): void {
    for (const [jti] of this.issued) this.revokedRefresh.add(jti);
  }

  /** A token pair for a user without HTTP (tests). */
  tokensFor(email: string): TokenPair {
    const u = this.user(email);
    if (!u) throw new Error(`Unknown user ${email}`);
    return this.issue(u);
  }

  private issue(u: UserAccount): TokenPair {
    const nowSec = Math.floor(this.opts.now() / 1000);
    const base = {
      sub: u.email,
      userId: u.userId,
      tenantId: u.tenantId,
      customerId: u.customerId,
      iss: 'trendz-simulator',
      iat: nowSec,
    };
    const jti = randomUUID();
    const rjti = randomUUID();
    const seq = ++this.seq;
    this.issued.set(jti, seq);
    this.issued.set(rjti, seq);
    if (this.issued.size > 200_000) {
      const oldest = this.issued.keys().next().value;
      if (oldest !== undefined) this.issued.delete(oldest);
    }
    this.issuedCount += 2;
    const access: JwtClaims = { ...base, scopes: [u.authority], jti, exp: nowSec + this.opts.tokenLifetimeSec };
    const refresh: JwtClaims = {
      ...base,
      scopes: ['REFRESH_TOKEN'],
      jti: rjti,
      exp: nowSec + this.opts.refreshLifetimeSec,
    };
    return { token: signJwt(access, this.opts.secret), refreshToken: signJwt(refresh, this.opts.secret) };
  }

  /** POST publicApi/auth/login `{username, password}`. */
  login(body: unknown): TokenPair {
    const b =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const username = typeof b.username === 'string' ? b.username : '';
    const password = typeof b.password === 'string' ? b.password : '';
    const u = username ? this.user(username) : undefined;
    if (!u || u.password !== password || password === '') throw new AuthError(MSG_BAD_CREDENTIALS);
    if (!u.enabled) throw new AuthError(MSG_NOT_ACTIVE);
    if (u.authority === 'SYS_ADMIN') throw new AuthError(MSG_SYSADMIN);
    return this.issue(u);
  }

  /** POST publicApi/auth/token `{refreshToken}`: a new pair (the old refresh token stays valid). */
  refresh(body: unknown): TokenPair {
    const b =
      typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
    const raw = typeof b.refreshToken === 'string' ? b.refreshToken.trim() : '';
    if (!raw) throw new AuthError(MSG_INVALID_REFRESH);
    const c = this.verify(raw);
    const scopes = Array.isArray(c.scopes) ? c.scopes : [];
    if (!scopes.includes('REFRESH_TOKEN')) throw new AuthError(MSG_INVALID_REFRESH);
    if (typeof c.jti === 'string' && this.revokedRefresh.has(c.jti)) throw new AuthError(MSG_INVALID_REFRESH);
    const u = this.userOf(c);
    return this.issue(u);
  }

  /** Checks `X-Authorization: Bearer <token>` (then `Authorization`). */
  authenticate(xAuth: string | undefined, auth: string | undefined): AnalyticsCaller {
    const raw = xAuth !== undefined && xAuth !== '' ? xAuth : auth;
    if (raw === undefined || raw.trim() === '') throw new AuthError(MSG_NO_TOKEN);
    if (!raw.startsWith('Bearer ')) throw new AuthError(MSG_INVALID_TOKEN);
    const c = this.verify(raw.slice(7).trim());
    const scopes = Array.isArray(c.scopes) ? c.scopes : [];
    const authority = scopes[0];
    if (authority !== 'TENANT_ADMIN' && authority !== 'CUSTOMER_USER') throw new AuthError(MSG_INVALID_TOKEN);
    const seq = typeof c.jti === 'string' ? this.issued.get(c.jti) : undefined;
    if (seq !== undefined && seq <= this.expiredUpTo) throw new AuthError(MSG_EXPIRED);
    const u = this.userOf(c);
    return { userId: u.userId, email: u.email, authority, tenantId: u.tenantId, customerId: u.customerId };
  }

  private verify(token: string): JwtClaims {
    const r = parseJwt(token, this.opts.secret);
    if (r.kind !== 'ok') throw new AuthError(MSG_INVALID_TOKEN);
    const c = r.claims;
    if (typeof c.jti !== 'string' || !this.issued.has(c.jti)) throw new AuthError(MSG_INVALID_TOKEN);
    if (typeof c.exp !== 'number' || c.exp * 1000 <= this.opts.now()) throw new AuthError(MSG_EXPIRED);
    return c;
  }

  private userOf(c: JwtClaims): UserAccount {
    const u = this.users().find((x) => x.userId === c.userId);
    if (!u) throw new AuthError(MSG_INVALID_TOKEN);
    if (!u.enabled) throw new AuthError(MSG_NOT_ACTIVE);
    return u;
  }
}

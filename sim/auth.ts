/**
 * REST authentication (`SEC/auth/rest/RestLoginProcessingFilter.java`, `SEC/model/token/JwtTokenFactory.java`): login,
 * refresh, logout, JWT and API-key header checks, with the server's errors.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, unauthorized } from './errors';
import { parseJwt, signJwt, type JwtClaims, type JwtParseResult } from './jwt';
import type { ApiKeyRecord, UserAccount } from './seed';
import { NULL_UUID, type Authority, type Caller } from './types';

export const MSG_BAD_CREDENTIALS = 'Invalid username or password';
export const MSG_AUTH_FAILED = 'Authentication failed';
export const MSG_NOT_ACTIVE = 'User account is not active';
export const MSG_EXPIRED = 'Token has expired';
export const MSG_OUTDATED = 'Token is outdated';
export const MSG_API_KEY_EXPIRED = 'API key is expired';

/** Parses "4.3.1.3" into comparable parts. */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split(/[.-]/).map((x) => parseInt(x, 10) || 0);
  const b = min.split('.').map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

export interface JwtPair {
  token: string;
  refreshToken?: string;
  scope?: string;
}

/** An authenticated principal; `authority` null for tokens that are not user tokens (refresh, 2FA). */
export interface Principal extends Omit<Caller, 'authority'> {
  authority: Authority | null;
  sessionId: string | null;
}

export interface AuthOptions {
  tokenLifetimeSec: number;
  refreshLifetimeSec: number;
  version: string;
  now: () => number;
  secret: Buffer;
}

interface Session {
  userId: string;
  loggedOut: boolean;
}

export class AuthService {
  private readonly sessions = new Map<string, Session>();
  /** access-token signature -> issue sequence number (a refresh can re-issue an identical token) */
  private readonly issuedAccess = new Map<string, number>();
  private issueSeq = 0;
  /** access tokens issued at or before this sequence number are expired */
  private expiredUpTo = 0;
  private readonly liveRefresh = new Set<string>();
  private readonly revokedRefresh = new Set<string>();
  private readonly usersById = new Map<string, UserAccount>();
  private readonly usersByEmail = new Map<string, UserAccount>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  /** tokens whose signature was already checked (expiry and revocation are still checked per request) */
  private readonly verified = new Map<string, JwtParseResult>();
  /** 4.3+: API keys exist and the JWT filter checks the "Bearer " prefix */
  private apiKeysSupported: boolean;

  constructor(
    users: UserAccount[],
    apiKeys: ApiKeyRecord[],
    private readonly opts: AuthOptions,
  ) {
    for (const u of users) {
      this.usersById.set(u.userId, u);
      this.usersByEmail.set(u.email.toLowerCase(), u);
    }
    for (const k of apiKeys) this.keys.set(k.value, k);
    this.apiKeysSupported = versionAtLeast(opts.version, '4.3');
  }

  get users(): UserAccount[] {
    return [...this.usersById.values()];
  }

  user(email: string): UserAccount | undefined {
    return this.usersByEmail.get(email.toLowerCase());
  }

  setTokenLifetime(sec: number): void {
    this.opts.tokenLifetimeSec = sec;
  }
  setRefreshLifetime(sec: number): void {
    this.opts.refreshLifetimeSec = sec;
  }
  setVersion(version: string): void {
    this.opts.version = version;
    this.apiKeysSupported = versionAtLeast(version, '4.3');
  }

  /** Every access token issued so far answers 401/11 from now on (fresh logins and refreshes work). */
  expireAllTokens(): void {
    this.expiredUpTo = this.issueSeq;
  }

  /** Every refresh token issued so far answers 401/10 "Token is outdated". */
  revokeRefreshTokens(): void {
    for (const jti of this.liveRefresh) this.revokedRefresh.add(jti);
    this.liveRefresh.clear();
  }

  /** Adds or replaces an API key (for tests). */
  putApiKey(rec: ApiKeyRecord): void {
    this.keys.set(rec.value, rec);
  }

  // -------------------------------------------------------------------------------------------------------------

  private issue(u: UserAccount, sessionId: string): JwtPair {
    const nowSec = Math.floor(this.opts.now() / 1000);
    const access: JwtClaims = {
      sub: u.email,
      userId: u.userId,
      scopes: [u.authority],
      sessionId,
      firstName: u.firstName,
      lastName: u.lastName,
      enabled: u.enabled,
      isPublic: false,
      tenantId: u.tenantId,
      customerId: u.customerId ?? NULL_UUID,
      iss: 'thingsboard.io',
      iat: nowSec,
      exp: nowSec + this.opts.tokenLifetimeSec,
    };
    const jti = randomUUID();
    const refresh: JwtClaims = {
      sub: u.email,
      userId: u.userId,
      scopes: ['REFRESH_TOKEN'],
      sessionId,
      isPublic: false,
      jti,
      iss: 'thingsboard.io',
      iat: nowSec,
      exp: nowSec + this.opts.refreshLifetimeSec,
    };
    const token = signJwt(access, this.opts.secret);
    const sig = token.slice(token.lastIndexOf('.') + 1);
    this.issuedAccess.delete(sig);
    this.issuedAccess.set(sig, ++this.issueSeq);
    if (this.issuedAccess.size > 100_000) {
      const oldest = this.issuedAccess.keys().next().value;
      if (oldest !== undefined) this.issuedAccess.delete(oldest);
    }
    this.liveRefresh.add(jti);
    return { token, refreshToken: signJwt(refresh, this.opts.secret) };
  }

  /** Issues a token pair for a user without a password (tests). */
  tokensFor(email: string): JwtPair {
    const u = this.user(email);
    if (!u) throw new Error(`Unknown user ${email}`);
    const sessionId = randomUUID();
    this.sessions.set(sessionId, { userId: u.userId, loggedOut: false });
    return this.issue(u, sessionId);
  }

  /** POST /api/auth/login */
  login(body: unknown): JwtPair {
    const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;
    const username = b && typeof b.username === 'string' ? b.username.trim() : '';
    const password = b && typeof b.password === 'string' ? b.password : '';
    if (!username || !password) throw unauthorized(MSG_AUTH_FAILED);
    const u = this.user(username);
    if (!u) throw unauthorized(MSG_BAD_CREDENTIALS);
    if (!u.enabled) throw unauthorized(MSG_NOT_ACTIVE);
    if (u.password !== password) throw unauthorized(MSG_BAD_CREDENTIALS);
    const sessionId = randomUUID();
    this.sessions.set(sessionId, { userId: u.userId, loggedOut: false });
    if (u.mfa) {
      const nowSec = Math.floor(this.opts.now() / 1000);
      const token = signJwt(
        {
          sub: u.email,
          userId: u.userId,
          scopes: ['PRE_VERIFICATION_TOKEN'],
          sessionId,
          isPublic: false,
          tenantId: u.tenantId,
          customerId: u.customerId ?? NULL_UUID,
          iss: 'thingsboard.io',
          iat: nowSec,
          exp: nowSec + 1800,
        },
        this.opts.secret,
      );
      return { token, scope: 'PRE_VERIFICATION_TOKEN' };
    }
    return this.issue(u, sessionId);
  }

  /** POST /api/auth/token */
  refresh(body: unknown): JwtPair {
    const b = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : null;
    const raw = b && typeof b.refreshToken === 'string' ? b.refreshToken.trim() : '';
    if (!raw) throw unauthorized(MSG_AUTH_FAILED);
    const r = parseJwt(raw, this.opts.secret);
    if (r.kind === 'malformed') throw unauthorized(MSG_BAD_CREDENTIALS);
    if (r.kind === 'badSignature') throw unauthorized(MSG_EXPIRED, 11);
    const c = r.claims;
    if (typeof c.exp !== 'number' || c.exp * 1000 <= this.opts.now()) throw unauthorized(MSG_EXPIRED, 11);
    const scopes = Array.isArray(c.scopes) ? c.scopes : [];
    if (!scopes.includes('REFRESH_TOKEN')) throw unauthorized(MSG_BAD_CREDENTIALS);
    const sessionId = typeof c.sessionId === 'string' ? c.sessionId : '';
    const session = this.sessions.get(sessionId);
    if ((typeof c.jti === 'string' && this.revokedRefresh.has(c.jti)) || !session || session.loggedOut) {
      throw unauthorized(MSG_OUTDATED);
    }
    const u = typeof c.userId === 'string' ? this.usersById.get(c.userId) : undefined;
    if (!u) throw unauthorized(MSG_BAD_CREDENTIALS);
    if (!u.enabled) throw unauthorized(MSG_NOT_ACTIVE);
    return this.issue(u, sessionId);
  }

  /** POST /api/auth/logout: the session's access tokens become "expired", its refresh tokens "outdated". */
  logout(p: Principal): void {
    if (!p.sessionId) return;
    const s = this.sessions.get(p.sessionId);
    if (s) s.loggedOut = true;
  }

  /**
   * Checks `X-Authorization` (then `Authorization`): `Bearer <jwt>` or, from 4.3, `ApiKey <key>`.
   * Before 4.3 the first 7 characters were cut off unchecked, so an API key is parsed as a (malformed) JWT.
   */
  authenticate(xAuth: string | undefined, auth: string | undefined): Principal {
    const raw = xAuth !== undefined && xAuth !== '' ? xAuth : auth;
    if (raw === undefined || raw === '') throw unauthorized(MSG_AUTH_FAILED);
    if (!this.apiKeysSupported) return this.jwt(raw.slice(7));
    if (raw.startsWith('Bearer ')) return this.jwt(raw.slice(7));
    if (raw.startsWith('ApiKey ')) return this.apiKey(raw.slice(7));
    throw unauthorized(MSG_AUTH_FAILED);
  }

  private principal(u: UserAccount, sessionId: string | null, authority: Authority | null): Principal {
    return { authority, userId: u.userId, tenantId: u.tenantId, customerId: u.customerId, sessionId };
  }

  private jwt(token: string): Principal {
    const t = token.trim();
    if (!t) throw unauthorized(MSG_AUTH_FAILED);
    let r = this.verified.get(t);
    if (!r) {
      r = parseJwt(t, this.opts.secret);
      if (r.kind === 'ok') {
        if (this.verified.size >= 1000) this.verified.clear();
        this.verified.set(t, r);
      }
    }
    if (r.kind === 'malformed') throw unauthorized(MSG_BAD_CREDENTIALS);
    if (r.kind === 'badSignature') throw unauthorized(MSG_EXPIRED, 11);
    const c = r.claims;
    if (typeof c.exp !== 'number' || c.exp * 1000 <= this.opts.now()) throw unauthorized(MSG_EXPIRED, 11);
    const seq = this.issuedAccess.get(r.signature);
    if (seq !== undefined && seq <= this.expiredUpTo) throw unauthorized(MSG_EXPIRED, 11);
    const sessionId = typeof c.sessionId === 'string' ? c.sessionId : null;
    if (sessionId && this.sessions.get(sessionId)?.loggedOut) throw unauthorized(MSG_EXPIRED, 11);
    const u = typeof c.userId === 'string' ? this.usersById.get(c.userId) : undefined;
    if (!u) throw unauthorized(MSG_BAD_CREDENTIALS);
    const scopes = Array.isArray(c.scopes) ? (c.scopes as unknown[]) : [];
    const scope = scopes[0];
    const authority: Authority | null =
      scope === 'SYS_ADMIN' || scope === 'TENANT_ADMIN' || scope === 'CUSTOMER_USER' ? scope : null;
    return this.principal(u, sessionId, authority);
  }

  private apiKey(value: string): Principal {
    const rec = this.keys.get(value.trim());
    if (!rec) throw unauthorized(MSG_BAD_CREDENTIALS);
    if (!rec.enabled) throw unauthorized(MSG_NOT_ACTIVE);
    if (rec.expirationTime > 0 && rec.expirationTime <= this.opts.now()) throw unauthorized(MSG_API_KEY_EXPIRED);
    const u = this.usersById.get(rec.userId);
    if (!u) throw unauthorized(MSG_BAD_CREDENTIALS);
    if (!u.enabled) throw unauthorized(MSG_NOT_ACTIVE);
    return this.principal(u, null, u.authority);
  }
}

export { ApiError };

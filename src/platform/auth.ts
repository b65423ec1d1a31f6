/**
 * Authentication for one platform connection: the header every request carries, and the token lifecycle.
 *
 * - password: POST /api/auth/login, then POST /api/auth/token with the refresh token shortly before the
 *   access token expires (its `exp`, corrected for the clock skew measured from `iat`); when the refresh
 *   fails the manager logs in again. One login/refresh at a time, however many requests wait on it.
 * - apiKey: `X-Authorization: ApiKey <key>` (ThingsBoard 4.3+); nothing to refresh.
 * - token: a pre-issued JWT used as is; a clear error once it has expired.
 *
 * After the server refuses the credentials, further attempts are answered locally with the same error for a
 * growing cool-down (5 s doubling to 5 min), so a flow that keeps sending messages cannot hammer the server.
 */
import { createHash } from 'node:crypto';
import { TbApiError, TbAuthError, TbConfigError, TbError } from '../errors';
import { HttpClient } from './http';
import { decodeJwt } from './jwt';
import { cachedTokens, forgetTokens, storeTokens } from './token-cache';

export type AuthMode = 'password' | 'apiKey' | 'token';

export interface Credentials {
  username?: string;
  password?: string;
  apiKey?: string;
  token?: string;
}

export interface AuthOptions {
  /** Login and refresh endpoints (defaults: the platform's /api/auth/login and /api/auth/token). */
  loginPath?: string;
  refreshPath?: string;
  /** What to call the server in messages. */
  serviceName?: string;
  /** Does this error answer mean "the access token is no longer good, get a new one and retry once"? */
  isExpired?: (err: TbApiError) => boolean;
  /** Lifetime assumed for a token whose expiry cannot be read (ms). */
  defaultLifetimeMs?: number;
  /** Refresh this long before expiry (ms); capped at 10 % of the token's lifetime for short-lived tokens. */
  refreshMarginMs?: number;
  /** First cool-down after a refusal (ms). */
  refusalCooldownMs?: number;
  /** Longest cool-down (ms). */
  refusalCooldownMaxMs?: number;
  /** Called when the server refuses the credentials (status fan-out). */
  onRefused?: (err: TbError) => void;
  /** Called when authentication works again after a refusal. */
  onAccepted?: () => void;
  /**
   * Password mode: keep the tokens across redeploys under this key (the connection node's id) and the server
   * address `url`; see token-cache.ts.
   */
  cache?: { key: string; url: string };
}

/** What the WebSocket's authCmd needs. */
export type WsAuth = { token: string } | { apiKey: string };

interface TokenPair {
  token?: unknown;
  refreshToken?: unknown;
  scope?: unknown;
}

/**
 * Identifies what a token was issued for (server address, mode and credentials) without keeping the credentials:
 * a cached token is used again only under the same fingerprint (token-cache.ts).
 */
function fingerprint(url: string, mode: AuthMode, creds: Credentials): string {
  const h = createHash('sha256');
  for (const part of [url.replace(/\/+$/, ''), mode, creds.username ?? '', creds.password ?? ''])
    h.update(part).update('\0');
  return h.digest('hex');
}

/** The platform's rule: a 401 with errorCode 11 (JWT_TOKEN_EXPIRED); any other 401 is shown to the user. */
const platformExpired = (err: TbApiError): boolean => err.status === 401 && err.errorCode === 11;

export class AuthManager {
  readonly mode: AuthMode;
  private readonly http: HttpClient;
  private readonly creds: Credentials;
  private readonly marginMs: number;
  private readonly cooldownMs: number;
  private readonly cooldownMaxMs: number;
  private readonly onRefused?: (err: TbError) => void;
  private readonly onAccepted?: () => void;
  private readonly loginPath: string;
  private readonly refreshPath: string;
  private readonly serviceName: string;
  private readonly isExpired: (err: TbApiError) => boolean;
  private readonly defaultLifetimeMs: number;
  /** The server has no refresh endpoint (404/405): log in again instead. */
  private refreshUnsupported = false;

  private headerValue: string | undefined;
  private token: string | undefined;
  /** Expiry of the access token on the local clock (ms), margin already subtracted. */
  private refreshAt = 0;
  private refreshToken: string | undefined;
  private refreshTokenExpiresAt = 0;
  private inflight: Promise<string> | undefined;
  /** Where the tokens are cached across redeploys (password mode with the cache option). */
  private readonly cacheKey: string | undefined;
  private readonly cachePrint: string = '';
  /** The header restored from the cache, until the server accepted it or a fresh token replaced it. */
  private cachedHeader: string | undefined;

  private refusal: TbError | undefined;
  private refusedUntil = 0;
  private refusals = 0;

  constructor(http: HttpClient, mode: AuthMode, creds: Credentials, opts: AuthOptions = {}) {
    this.http = http;
    this.mode = mode;
    this.creds = creds;
    this.marginMs = opts.refreshMarginMs ?? 30000;
    this.cooldownMs = opts.refusalCooldownMs ?? 5000;
    this.cooldownMaxMs = opts.refusalCooldownMaxMs ?? 300000;
    this.onRefused = opts.onRefused;
    this.onAccepted = opts.onAccepted;
    this.loginPath = opts.loginPath ?? '/api/auth/login';
    this.refreshPath = opts.refreshPath ?? '/api/auth/token';
    this.serviceName = opts.serviceName ?? 'ThingsBoard';
    this.isExpired = opts.isExpired ?? platformExpired;
    this.defaultLifetimeMs = opts.defaultLifetimeMs ?? 15 * 60000;
    if (mode === 'apiKey' && creds.apiKey) {
      this.headerValue = `ApiKey ${creds.apiKey}`;
      this.refreshAt = Number.POSITIVE_INFINITY;
    }
    if (mode === 'password' && opts.cache) {
      this.cacheKey = opts.cache.key;
      this.cachePrint = fingerprint(opts.cache.url, mode, creds);
      const c = cachedTokens(this.cacheKey, this.cachePrint);
      if (c) {
        this.token = c.token;
        this.headerValue = `Bearer ${c.token}`;
        this.cachedHeader = this.headerValue;
        this.refreshAt = c.refreshAt;
        this.refreshToken = c.refreshToken;
        this.refreshTokenExpiresAt = c.refreshTokenExpiresAt;
      }
    }
    if (mode === 'token' && creds.token) {
      // Used as is until the server says it has expired (our clock may not agree with the server's).
      this.token = creds.token;
      this.headerValue = `Bearer ${creds.token}`;
      this.refreshAt = Number.POSITIVE_INFINITY;
    }
  }

  /** Throws a TbConfigError when the credentials for the mode are missing. */
  checkConfig(): void {
    if (this.mode === 'password' && (!this.creds.username || !this.creds.password)) {
      throw new TbConfigError('The connection needs a username and a password (authentication mode "password")');
    }
    if (this.mode === 'apiKey' && !this.creds.apiKey) {
      throw new TbConfigError('The connection needs an API key (authentication mode "API key")');
    }
    if (this.mode === 'token' && !this.creds.token) {
      throw new TbConfigError('The connection needs a token (authentication mode "token")');
    }
  }

  /** The X-Authorization header value; synchronous while the current token is good. */
  header(): string | Promise<string> {
    const h = this.headerValue;
    if (h !== undefined && Date.now() < this.refreshAt) return h;
    return this.obtain();
  }

  /** Credentials for the WebSocket authCmd (a valid token, refreshed if needed, or the API key). */
  async wsAuth(): Promise<WsAuth> {
    if (this.mode === 'apiKey') {
      this.checkConfig();
      return { apiKey: this.creds.apiKey as string };
    }
    await this.header();
    return { token: this.token as string };
  }

  /**
   * A request sent with `usedHeader` got a 401. Returns true when the request should be retried once with a
   * fresh header (expired access token in password mode); otherwise returns the error to throw.
   */
  async onUnauthorized(usedHeader: string, err: TbApiError): Promise<true | TbError> {
    if (this.mode === 'password' && this.isExpired(err)) {
      if (usedHeader === this.cachedHeader) this.cachedHeader = undefined; // the server knows it: only expired
      if (this.headerValue === usedHeader) this.invalidate(); // else another request already renewed it
      await this.header();
      return true;
    }
    if (this.mode === 'password' && usedHeader === this.cachedHeader) {
      // A token kept from before a redeploy that this server does not know (restarted with other keys, a
      // different server at the same address): forget it and its refresh token, log in, retry once.
      this.cachedHeader = undefined;
      this.refreshToken = undefined;
      if (this.headerValue === usedHeader) this.invalidate();
      await this.header();
      return true;
    }
    if (this.mode === 'token' && err.errorCode === 11) {
      this.refreshAt = 0; // from now on answered locally: the token will not get better
      return this.expiredTokenError();
    }
    if (this.mode === 'apiKey') {
      return this.refuse(
        new TbAuthError(
          'TB_AUTH_FAILED',
          err.status,
          err.errorCode,
          err.serverMessage,
          `ThingsBoard refused the API key (HTTP ${err.status}: ${err.serverMessage ?? 'unauthorized'}). API keys ` +
            'need ThingsBoard 4.3 or later; check that the key exists, is enabled and has not expired',
        ),
      );
    }
    return err;
  }

  /**
   * The server rejected the current access token (e.g. the WebSocket closed with 1007): drop it so the next
   * use refreshes it (or logs in again).
   */
  invalidate(): void {
    if (this.mode !== 'password') return;
    this.headerValue = undefined;
    this.token = undefined;
    this.refreshAt = 0;
    if (this.cachedHeader) {
      // Refused while still unconfirmed (e.g. the WebSocket closed with 1007): its refresh token is no better.
      this.cachedHeader = undefined;
      this.refreshToken = undefined;
    }
    if (this.cacheKey) forgetTokens(this.cacheKey);
  }

  /** The connection node was deleted (not redeployed): its tokens are of no further use. */
  forgetCached(): void {
    if (this.cacheKey) forgetTokens(this.cacheKey);
  }

  private obtain(): Promise<string> {
    if (this.mode === 'token') {
      if (!this.headerValue) return Promise.reject(this.configError());
      return Promise.reject(this.expiredTokenError());
    }
    if (this.mode === 'apiKey') {
      if (!this.headerValue) return Promise.reject(this.configError());
      // refreshAt is only lowered by a refusal: answer locally until its cool-down is over.
      if (this.refusal && Date.now() < this.refusedUntil) return Promise.reject(this.refusal);
      this.refreshAt = Number.POSITIVE_INFINITY;
      return Promise.resolve(this.headerValue);
    }
    if (!this.inflight) {
      this.inflight = this.loginOrRefresh().finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private configError(): TbError {
    try {
      this.checkConfig();
    } catch (e) {
      return e as TbError;
    }
    return new TbConfigError('The connection has no usable credentials');
  }

  private expiredTokenError(): TbAuthError {
    const claims = this.token ? decodeJwt(this.token) : undefined;
    const when = typeof claims?.exp === 'number' ? ` at ${new Date(claims.exp * 1000).toISOString()}` : '';
    return new TbAuthError(
      'TB_TOKEN_EXPIRED',
      401,
      11,
      'Token has expired',
      `The pre-issued token of the connection expired${when}. Paste a new token, or use the "password" or "API key" ` +
        'mode so that tokens are renewed automatically',
    );
  }

  private async loginOrRefresh(): Promise<string> {
    const now = Date.now();
    if (this.refusal && now < this.refusedUntil) throw this.refusal;
    if (this.refreshToken && now < this.refreshTokenExpiresAt && !this.refreshUnsupported) {
      const res = await this.http.send('POST', this.refreshPath, { refreshToken: this.refreshToken }, undefined);
      if (res.status === 200) {
        const h = this.accept(res.data);
        if (h) return h;
      }
      if (res.status === 404 || res.status === 405) this.refreshUnsupported = true;
      // A refused or unreadable refresh: fall back to a full login below.
      this.refreshToken = undefined;
    }
    this.checkConfig();
    const res = await this.http.send(
      'POST',
      this.loginPath,
      { username: this.creds.username, password: this.creds.password },
      undefined,
    );
    if (res.status === 200) {
      const body = (res.data ?? {}) as TokenPair;
      if (typeof body.scope === 'string' && !body.refreshToken) {
        throw this.refuse(
          new TbAuthError(
            'TB_2FA_REQUIRED',
            200,
            undefined,
            `scope ${body.scope}`,
            `This account uses two-factor authentication, which a flow cannot answer (${this.serviceName} login). ` +
              'Create an API key for the account (ThingsBoard 4.3+) and choose the "API key" authentication mode',
          ),
        );
      }
      const h = this.accept(res.data);
      if (h) return h;
      throw new TbError('TB_BAD_RESPONSE', `${this.serviceName} answered the login without a token`);
    }
    const apiErr = this.http.apiError(res.status, res.data, 'POST', this.loginPath);
    if (res.status === 401 || res.status === 403) {
      throw this.refuse(
        new TbAuthError(
          'TB_AUTH_FAILED',
          res.status,
          apiErr.errorCode,
          apiErr.serverMessage,
          `${this.serviceName} refused the username/password ` +
            `(HTTP ${res.status}: ${apiErr.serverMessage ?? 'unauthorized'}). Check the credentials of the connection`,
        ),
      );
    }
    throw apiErr;
  }

  /** Stores a token pair; returns the new header, or undefined when the body holds no token. */
  private accept(data: unknown): string | undefined {
    const body = (data ?? {}) as TokenPair;
    if (typeof body.token !== 'string') return undefined;
    const now = Date.now();
    const claims = decodeJwt(body.token);
    const iatMs = typeof claims?.iat === 'number' ? claims.iat * 1000 : now;
    const expMs = typeof claims?.exp === 'number' ? claims.exp * 1000 : now + this.defaultLifetimeMs;
    // Server clock minus local clock: `iat` is the server's "now" when it issued the token.
    const skew = iatMs - now;
    const lifetime = Math.max(0, expMs - iatMs);
    const margin = Math.min(this.marginMs, lifetime * 0.1);
    this.token = body.token;
    this.headerValue = `Bearer ${body.token}`;
    this.refreshAt = expMs - skew - margin;
    if (typeof body.refreshToken === 'string') {
      this.refreshToken = body.refreshToken;
      const rc = decodeJwt(body.refreshToken);
      this.refreshTokenExpiresAt = typeof rc?.exp === 'number' ? rc.exp * 1000 - skew - margin : now + 3600000;
    }
    this.cachedHeader = undefined;
    if (this.cacheKey) {
      storeTokens(this.cacheKey, this.cachePrint, {
        token: body.token,
        refreshAt: this.refreshAt,
        refreshToken: this.refreshToken,
        refreshTokenExpiresAt: this.refreshTokenExpiresAt,
      });
    }
    if (this.refusal) {
      this.refusal = undefined;
      this.refusals = 0;
      this.refusedUntil = 0;
      this.onAccepted?.();
    }
    return this.headerValue;
  }

  private refuse(err: TbError): TbError {
    if (this.cacheKey) forgetTokens(this.cacheKey);
    this.refusals++;
    this.refusal = err;
    this.refusedUntil = Date.now() + Math.min(this.cooldownMaxMs, this.cooldownMs * Math.pow(2, this.refusals - 1));
    if (this.mode === 'apiKey') this.refreshAt = 0; // route the next requests through obtain()
    this.onRefused?.(err);
    return err;
  }

  /** A request was answered with 2xx: in API-key mode this ends a refusal. */
  noteSuccess(): void {
    if (this.refusal && this.mode === 'apiKey') {
      this.refusal = undefined;
      this.refusals = 0;
      this.refusedUntil = 0;
      this.onAccepted?.();
    }
  }
}

/**
 * Tokens kept across redeploys. A full deploy closes and recreates every config node; without this cache each
 * redeploy logged in again (101 logins for 100 redeploys). The cache lives in this module, so it lasts as long
 * as the Node-RED process, and holds at most one entry per connection node id, valid only for the same server
 * address, authentication mode and credentials (compared through a SHA-256 fingerprint that the token manager makes
 * of them: the credentials are not kept here). An entry is dropped when they change, when the server refuses the
 * token, and when the connection node is deleted.
 */
/** The token state an AuthManager restores (times are on the local clock, margins already applied). */
export interface CachedTokens {
  token: string;
  refreshAt: number;
  refreshToken?: string;
  refreshTokenExpiresAt: number;
}

interface Entry {
  fingerprint: string;
  tokens: CachedTokens;
}

const cache = new Map<string, Entry>();

/** The tokens stored for a connection, if they were issued for the same fingerprint (otherwise the entry goes). */
export function cachedTokens(key: string, print: string): CachedTokens | undefined {
  const e = cache.get(key);
  if (!e) return undefined;
  if (e.fingerprint !== print) {
    cache.delete(key);
    return undefined;
  }
  return { ...e.tokens };
}

export function storeTokens(key: string, print: string, tokens: CachedTokens): void {
  cache.set(key, { fingerprint: print, tokens: { ...tokens } });
}

export function forgetTokens(key: string): void {
  cache.delete(key);
}

/** For tests: how many connections have tokens cached. */
export function tokenCacheSize(): number {
  return cache.size;
}

/** For tests: forget every cached token (each test starts with a first login). */
export function clearTokenCache(): void {
  cache.clear();
}

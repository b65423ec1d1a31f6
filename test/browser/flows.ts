/**
 * What the browser tests deploy again and again: the simulator's tenant administrator and a connection node signed in
 * as that user.
 */

/** The simulator's tenant administrator (sim/seed.ts): whom the browser tests sign in as. */
export const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };

/**
 * A tb-connection node to the simulator at `url`, named "sim", signed in with a password as the tenant administrator;
 * `extra` adds or replaces properties (another name, the analytics settings).
 */
export function simConnection(id: string, url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    type: 'tb-connection',
    name: 'sim',
    url,
    authMode: 'password',
    timeout: 10,
    version: 1,
    credentials: { ...TENANT },
    ...extra,
  };
}

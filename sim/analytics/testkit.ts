/** Helpers for the analytics simulator's own tests. */
import { BASE_TIME } from '../dataset';
import { startAnalyticsServer, type AnalyticsServer, type AnalyticsServerOptions } from './server';

/** 2026-01-01T00:30:00Z, like the platform tests. */
export const NOW = BASE_TIME + 30 * 60_000;

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface ACtx {
  a: AnalyticsServer;
  clock: { now: number };
  /** POST to base + path with a JSON body (string bodies are sent as they are) */
  post(path: string, body?: unknown, headers?: Record<string, string>, init?: RequestInit): Promise<Res>;
  login(username?: string, password?: string): Promise<{ token: string; refreshToken: string }>;
  /** buildReport with a Bearer token */
  report(token: string, body: unknown, headers?: Record<string, string>): Promise<Res>;
}

export async function toRes(r: Response): Promise<Res> {
  const text = await r.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: r.status, headers: r.headers, text, body };
}

export async function setupAnalytics(opts: AnalyticsServerOptions = {}): Promise<ACtx> {
  const clock = { now: NOW };
  const a = await startAnalyticsServer({ now: () => clock.now, ...opts });
  const post = async (
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    init: RequestInit = {},
  ): Promise<Res> => {
    const r = await fetch(a.baseUrl + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    });
    return toRes(r);
  };
  const login = async (
    username = 'tenant@thingsboard.org',
    password = 'tenant',
  ): Promise<{ token: string; refreshToken: string }> => {
    const r = await post('publicApi/auth/login', { username, password });
    if (r.status !== 200) throw new Error(`login ${username}: ${r.status} ${r.text}`);
    return r.body as { token: string; refreshToken: string };
  };
  const report = (token: string, body: unknown, headers: Record<string, string> = {}): Promise<Res> =>
    post('publicApi/buildReport', body, { 'X-Authorization': `Bearer ${token}`, ...headers });
  return { a, clock, post, login, report };
}

export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

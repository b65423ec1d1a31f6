/** Helpers for the simulator's own tests: a fake clock, a tiny HTTP client, query builders. */
import type { EntityKey } from './types';
import { BASE_TIME, Simulator, type SimOptions } from './index';

/** The fake "now" of the tests: 2026-01-01T00:30:00Z (the dataset's latest values are at 00:00). */
export const NOW = BASE_TIME + 30 * 60_000;

export interface Clock {
  now: number;
}

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  // test code inspects arbitrary JSON shapes
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export class Client {
  constructor(
    readonly url: string,
    public auth: Record<string, string> = {},
  ) {}

  async request(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<HttpResult> {
    const res = await fetch(this.url + path, {
      method,
      headers: { 'Content-Type': 'application/json', ...this.auth, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  }

  post(path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult> {
    return this.request('POST', path, body, headers);
  }

  /** POST and insist on 200. */
  async ok(path: string, body?: unknown): Promise<HttpResult['body']> {
    const r = await this.post(path, body);
    if (r.status !== 200) throw new Error(`${path}: HTTP ${r.status} ${r.text}`);
    return r.body;
  }
}

export interface Ctx {
  sim: Simulator;
  url: string;
  clock: Clock;
  tenant: Client;
  customer: Client;
  anon: Client;
}

export async function login(url: string, username: string, password: string): Promise<Client> {
  const anon = new Client(url);
  const r = await anon.post('/api/auth/login', { username, password });
  if (r.status !== 200) throw new Error(`login ${username}: ${r.status} ${r.text}`);
  return new Client(url, { 'X-Authorization': `Bearer ${r.body.token as string}` });
}

export async function setup(opts: SimOptions = {}): Promise<Ctx> {
  const clock: Clock = { now: NOW };
  const sim = new Simulator({ now: () => clock.now, ...opts });
  const url = await sim.start();
  return {
    sim,
    url,
    clock,
    tenant: await login(url, 'tenant@thingsboard.org', 'tenant'),
    customer: await login(url, 'customer@thingsboard.org', 'customer'),
    anon: new Client(url),
  };
}

export const field = (key: string): EntityKey => ({ type: 'ENTITY_FIELD', key });
export const ts = (key: string): EntityKey => ({ type: 'TIME_SERIES', key });
export const attr = (key: string, type: EntityKey['type'] = 'SERVER_ATTRIBUTE'): EntityKey => ({ type, key });

export function strPred(operation: string, value: string, ignoreCase = false): unknown {
  return { type: 'STRING', operation, value: { defaultValue: value }, ignoreCase };
}
export function numPred(operation: string, value: number): unknown {
  return { type: 'NUMERIC', operation, value: { defaultValue: value } };
}
export function boolPred(operation: string, value: boolean): unknown {
  return { type: 'BOOLEAN', operation, value: { defaultValue: value } };
}
export function keyFilter(key: EntityKey, predicate: unknown): unknown {
  return { key, valueType: null, predicate };
}

export const ALL_DEVICES = { type: 'entityType', entityType: 'DEVICE' };
export const THERMOSTATS = { type: 'deviceType', deviceTypes: ['thermostat'] };

/** A find query with `name` requested, 100 per page, sorted by name ASC unless overridden. */
export function findQuery(
  entityFilter: unknown,
  extra: Record<string, unknown> = {},
  pageLink: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    entityFilter,
    entityFields: [field('name')],
    latestValues: [],
    keyFilters: [],
    ...extra,
    pageLink: { page: 0, pageSize: 100, sortOrder: { key: field('name'), direction: 'ASC' }, ...pageLink },
  };
}

/** Names (latest.ENTITY_FIELD.name) of a find response. */
export function names(page: { data: { latest: { ENTITY_FIELD?: { name?: { value: string } } } }[] }): string[] {
  return page.data.map((d) => d.latest.ENTITY_FIELD?.name?.value ?? '?');
}

/** Decodes a JWT payload (no verification). */
export function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

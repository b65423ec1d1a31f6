/**
 * The dialog's side of the admin endpoints of tb-connection: suggestions (profiles, entities, keys, alarm
 * types), the preview and the connection test. Paths are relative to the editor's admin root, so they work
 * under `httpAdminRoot` and with the editor's auth token. Answers of the look-ups are kept for a short time,
 * so typing in a picker asks the runtime once per text; the runtime caches the server's answers too.
 *
 * A look-up that fails (connection not deployed, server unreachable) answers `null`: the pickers then work as
 * plain text fields, and `problem` says why, for a hint in the dialog.
 */

import { t } from './dom';

export interface EntityItem {
  id: { entityType: string; id: string };
  name: string;
}

export interface KeysAnswer {
  timeseries: string[];
  attributes: Partial<Record<string, string[]>>;
}

export interface AdminError {
  status: number;
  code: string;
  message: string;
}

export type Answer<T> = { ok: true; value: T } | { ok: false; error: AdminError };

const TTL_MS = 30000;
const cache = new Map<string, { at: number; answer: Promise<Answer<unknown>> }>();
/** Names of the entities the pickers have seen, by id (for the summary line). */
const entityNames = new Map<string, string>();

/** One admin request; errors come back as `{ ok: false, error }`, never as an exception. */
export function request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer<T>> {
  return new Promise((resolve) => {
    $.ajax({
      url: path,
      method,
      dataType: 'json',
      contentType: body === undefined ? undefined : 'application/json',
      data: body === undefined ? undefined : JSON.stringify(body),
      cache: false,
      timeout: 60000,
    })
      .done((value: T) => resolve({ ok: true, value }))
      .fail((xhr: JQuery.jqXHR) => {
        const r = xhr.responseJSON as { code?: string; message?: string } | undefined;
        const status = xhr.status || 0;
        const message =
          r && typeof r.message === 'string'
            ? r.message
            : status === 401 || status === 403
              ? t('notPermitted')
              : status === 0
                ? t('noAnswer')
                : `HTTP ${status}${xhr.statusText ? ` ${xhr.statusText}` : ''}`;
        resolve({
          ok: false,
          error: {
            status,
            code: (r && r.code) || (status === 401 || status === 403 ? 'NOT_PERMITTED' : 'HTTP_ERROR'),
            message,
          },
        });
      });
  });
}

function cached<T>(path: string): Promise<Answer<T>> {
  const now = Date.now();
  const hit = cache.get(path);
  if (hit && now - hit.at < TTL_MS) return hit.answer as Promise<Answer<T>>;
  const answer = request<T>('GET', path);
  cache.set(path, { at: now, answer });
  // A failed answer is not kept: the next keystroke may find the connection deployed.
  void answer.then((a) => {
    if (!a.ok && cache.get(path)?.answer === answer) cache.delete(path);
  });
  if (cache.size > 300) {
    for (const [k, v] of cache) if (now - v.at >= TTL_MS) cache.delete(k);
  }
  return answer;
}

function query(params: Record<string, string | undefined>): string {
  const parts: string[] = [];
  for (const k of Object.keys(params)) {
    const v = params[k];
    if (v !== undefined && v !== '') parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A notification target or template as the look-ups answer it. */
export interface NotificationItem {
  id: string;
  name: string;
  /** a target's type (PLATFORM_USERS, SLACK, MICROSOFT_TEAMS) */
  type?: string;
  methods: string[];
}

/** The preview endpoint's answer (the admin endpoints' PreviewResult). */
export interface PreviewAnswer {
  payload: unknown;
  page?: Record<string, unknown>;
  withoutConditions?: { count: number; entityType?: string };
}

/** The look-ups of the connection the dialog has selected (read each time: the user may change it). */
export class Lookups {
  /** Why the last look-up failed, if it did (cleared by a success). */
  problem: AdminError | undefined;
  private readonly listeners: Array<(p: AdminError | undefined) => void> = [];

  constructor(private readonly connectionId: () => string | undefined) {}

  private readonly nameListeners: Array<() => void> = [];

  onProblem(fn: (p: AdminError | undefined) => void): void {
    this.listeners.push(fn);
  }

  /** Called when new entity names are known (the summary can then name entities). */
  onNames(fn: () => void): void {
    this.nameListeners.push(fn);
  }

  /** The name of an entity seen in a look-up, if any. */
  knownName(id: string): string | undefined {
    return entityNames.get(id);
  }

  private learn(items: EntityItem[]): void {
    let news = false;
    for (const i of items) {
      if (entityNames.get(i.id.id) !== i.name) {
        entityNames.set(i.id.id, i.name);
        news = true;
      }
    }
    if (news) for (const fn of this.nameListeners) fn();
  }

  private base(): string | undefined {
    const id = this.connectionId();
    if (!id || id === '_ADD_') return undefined;
    return `tb-connection/${encodeURIComponent(id)}`;
  }

  private note<T>(a: Answer<T>): T | null {
    const p = a.ok ? undefined : a.error;
    if (p?.code !== this.problem?.code || p?.message !== this.problem?.message) {
      this.problem = p;
      for (const fn of this.listeners) fn(p);
    }
    return a.ok ? a.value : null;
  }

  private async get<T>(what: string, params: Record<string, string | undefined>): Promise<T | null> {
    const base = this.base();
    if (!base) return null;
    return this.note(await cached<T>(`${base}/${what}${query(params)}`));
  }

  async profiles(entityType: string, search = ''): Promise<string[] | null> {
    const r = await this.get<{ items: Array<{ name: string }> }>('profiles', { entityType, search });
    return r ? r.items.map((i) => i.name) : null;
  }

  async entities(entityType: string, search = ''): Promise<EntityItem[] | null> {
    const r = await this.get<{ items: EntityItem[] }>('entities', { entityType, search });
    if (r) this.learn(r.items);
    return r ? r.items : null;
  }

  /** Names of known ids (for ids already in a query). */
  async names(entityType: string, ids: string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (ids.length === 0) return out;
    const r = await this.get<{ items: EntityItem[] }>('entities', { entityType, ids: ids.join(',') });
    if (r) {
      for (const i of r.items) out.set(i.id.id, i.name);
      this.learn(r.items);
    }
    return out;
  }

  async keys(entityType: string, profiles: string[]): Promise<KeysAnswer | null> {
    return this.get<KeysAnswer>('keys', { entityType, profiles: profiles.join(',') });
  }

  /** The own keys of fixed entities of one type (a device action's fixed entity). */
  async entityKeys(entityType: string, ids: string[]): Promise<KeysAnswer | null> {
    return this.get<KeysAnswer>('keys', { entityType, ids: ids.join(',') });
  }

  async alarmTypes(search = ''): Promise<string[] | null> {
    const r = await this.get<{ items: string[] }>('alarm-types', { search });
    return r ? r.items : null;
  }

  /** Notification targets whose name contains `search`, with the delivery methods each can carry. */
  async notificationTargets(search = ''): Promise<NotificationItem[] | null> {
    const r = await this.get<{ items: NotificationItem[] }>('notification-targets', { search });
    return r ? r.items : null;
  }

  /** Notification templates whose name contains `search`, with their enabled delivery methods. */
  async notificationTemplates(search = ''): Promise<NotificationItem[] | null> {
    const r = await this.get<{ items: NotificationItem[] }>('notification-templates', { search });
    return r ? r.items : null;
  }

  /** The delivery methods the server can send with now. */
  async deliveryMethods(): Promise<string[] | null> {
    const r = await this.get<{ items: string[] }>('delivery-methods', {});
    return r ? r.items : null;
  }

  /** Runs a query once on the server (never cached). */
  preview(body: { node: string; operation: string; query: unknown; format?: string }): Promise<Answer<PreviewAnswer>> {
    const base = this.base();
    if (!base) return Promise.resolve({ ok: false, error: { status: 0, code: 'TB_CONFIG', message: '' } });
    return request('POST', `${base}/preview`, body);
  }
}

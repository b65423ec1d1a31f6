/**
 * The notification center over REST (ThingsBoard 3.5+): send a request, follow it until the server has its stats,
 * the targets and templates by name (for the editor and for nodes that name them), the delivery methods the server
 * offers, and the current user's inbox (mark one or all read, the unread count). Every request goes through the
 * Requester (auth, the retry after "token expired", the 429 policy, our error classes). Nothing here knows Node-RED.
 *
 * - A send is never resent after it may have reached the server (a second request would notify everyone again).
 * - Only tenant administrators (and the system administrator) may send: a customer user's connection is told so
 *   before anything is sent, in words, not with a bare 403.
 * - The server answers a send PROCESSING and delivers afterwards: `follow` reads the request until it is SENT (or
 *   the wait is over), since only then it has its stats.
 * - The unread count is asked with `deliveryMethod=WEB`: without it the server counts MOBILE_APP notifications.
 */
import { TbError } from '../errors';
import {
  requestSettled,
  sendBody,
  type DeliveryMethod,
  type NamedRef,
  type NotificationRequestInfo,
  type NotificationTarget,
  type NotificationTemplate,
} from '../protocol/notifications';
import type { PageData } from '../protocol/types';
import { explained, statusOf } from './explain';
import type { PlatformLookups } from './lookups';
import { checkObject, checkPage, isMissingEndpoint, type CallOptions, type Requester } from './requester';

const enc = encodeURIComponent;

/** How many targets or templates one look-up page holds (a name is looked for among them). */
export const LOOKUP_PAGE_SIZE = 100;

/** The delays between two reads of a request that is still PROCESSING (the last one repeats). */
const FOLLOW_DELAYS_MS = [100, 200, 400, 800, 1000];

/** Names resolved to ids are reused this long. */
const NAME_TTL_MS = 60_000;

/** No notification center on this server: it came in 3.5. */
function aboutMissing(err: unknown): unknown {
  if (!isMissingEndpoint(err)) return err;
  return explained(
    err,
    'This ThingsBoard server has no notification center (it came in ThingsBoard 3.5): update the server, or send ' +
      'with a rule chain',
  );
}

/** Only administrators may send: the sentence a customer user's connection gets. */
export const CUSTOMER_MAY_NOT_SEND =
  "Use a tenant administrator's login (or API key) for this node: ThingsBoard lets only tenant administrators send " +
  "notifications, and this connection's user is a customer user";

export interface FollowOptions extends CallOptions {
  /** How long to read the request until it is SENT (ms); 0 = answer with the send's own answer. */
  waitMs: number;
  /** Delays between reads, in tests; the real ones otherwise. */
  delays?: readonly number[];
}

export class Notifications {
  private readonly names = new Map<string, { id: string; at: number }>();

  constructor(
    private readonly requester: Requester,
    private readonly lookups: Pick<PlatformLookups, 'me'>,
  ) {}

  // -------------------------------------------------------------------------------------------------------------
  // Sending

  /** Refuses a customer user's connection before anything is sent. */
  async checkMaySend(opts?: CallOptions): Promise<void> {
    const me = await this.lookups.me(opts);
    if (me.authority === 'CUSTOMER_USER') throw new TbError('TB_PERMISSION', CUSTOMER_MAY_NOT_SEND);
  }

  /**
   * `POST /api/notification/request`: the saved request, PROCESSING (or SCHEDULED). Never resent after it may have
   * gone out: a resend would notify every recipient twice.
   */
  async send(
    targetIds: readonly string[],
    template: { id: string } | NotificationTemplate,
    opts?: CallOptions,
  ): Promise<NotificationRequestInfo> {
    await this.checkMaySend(opts);
    const path = '/api/notification/request';
    let answer: unknown;
    try {
      answer = await this.requester.request('POST', path, sendBody(targetIds, template), { ...opts, delivery: 'once' });
    } catch (err) {
      throw this.aboutSend(err);
    }
    return checkObject<NotificationRequestInfo>(answer, path, 'a notification request', isRequest);
  }

  private aboutSend(err: unknown): unknown {
    if (isMissingEndpoint(err)) return aboutMissing(err);
    const status = statusOf(err);
    if (status === 403)
      return explained(
        err,
        "Use a tenant administrator's login (or API key) for this node: ThingsBoard did not let this connection's " +
          'user send notifications',
      );
    if (status === 404) {
      // a target (or the template) was deleted since the node looked it up by name
      this.names.clear();
      return explained(err, 'A target of this node no longer exists: pick the targets again');
    }
    return explained(err, 'ThingsBoard refused the notification');
  }

  /** `GET /api/notification/request/{id}`: NotificationRequestInfo (status, stats, template name, methods). */
  async request(id: string, opts?: CallOptions): Promise<NotificationRequestInfo> {
    const path = `/api/notification/request/${enc(id)}`;
    const answer = await this.requester.request('GET', path, undefined, opts);
    return checkObject<NotificationRequestInfo>(answer, path, 'a notification request', isRequest);
  }

  /**
   * Reads the request until the server has finished it (SENT, with its stats; or SCHEDULED: it is sent later) or
   * `waitMs` has passed; answers the last state read. A failed read keeps the state known so far: the request was
   * sent.
   */
  async follow(sent: NotificationRequestInfo, o: FollowOptions): Promise<NotificationRequestInfo> {
    if (requestSettled(sent) || o.waitMs <= 0) return sent;
    const delays = o.delays ?? FOLLOW_DELAYS_MS;
    const deadline = Date.now() + o.waitMs;
    let last = sent;
    for (let i = 0; ; i++) {
      try {
        last = await this.request(sent.id.id, { onRetry: o.onRetry });
      } catch {
        return last;
      }
      if (requestSettled(last)) return last;
      const left = deadline - Date.now();
      if (left <= 0) return last;
      const wait = Math.min(left, delays[Math.min(i, delays.length - 1)]);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Targets, templates, delivery methods

  /** One page of targets whose name contains `search` (`GET /api/notification/targets`), by name. */
  async targets(search: string, opts?: CallOptions): Promise<PageData<NotificationTarget>> {
    return this.page<NotificationTarget>('/api/notification/targets', search, opts);
  }

  /** One page of templates whose name (or type) contains `search` (`GET /api/notification/templates`), by name. */
  async templates(
    search: string,
    opts?: CallOptions,
  ): Promise<PageData<NotificationTemplate & { id: { id: string } }>> {
    return this.page('/api/notification/templates', search, opts);
  }

  private async page<T>(path: string, search: string, opts?: CallOptions): Promise<PageData<T>> {
    const params: Record<string, string | number> = {
      pageSize: LOOKUP_PAGE_SIZE,
      page: 0,
      sortProperty: 'name',
      sortOrder: 'ASC',
    };
    if (search) params.textSearch = search;
    try {
      return checkPage<T>(await this.requester.request('GET', path, undefined, { ...opts, params }), path);
    } catch (err) {
      throw aboutMissing(err);
    }
  }

  /** `GET /api/notification/targets?ids=a,b`: the targets that exist among these ids (the UI's call). */
  async targetsByIds(ids: readonly string[], opts?: CallOptions): Promise<NotificationTarget[]> {
    if (ids.length === 0) return [];
    const path = '/api/notification/targets';
    let answer: unknown;
    try {
      answer = await this.requester.request('GET', path, undefined, { ...opts, params: { ids: ids.join(',') } });
    } catch (err) {
      throw aboutMissing(err);
    }
    if (!Array.isArray(answer)) throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with no list`);
    return answer as NotificationTarget[];
  }

  /** `GET /api/notification/template/{id}`. */
  async template(id: string, opts?: CallOptions): Promise<NotificationTemplate> {
    const path = `/api/notification/template/${enc(id)}`;
    try {
      return checkObject<NotificationTemplate>(await this.requester.request('GET', path, undefined, opts), path);
    } catch (err) {
      if (statusOf(err) === 404) throw explained(err, `Notification template ${id} was not found`);
      throw aboutMissing(err);
    }
  }

  /** `GET /api/notification/deliveryMethods`: the methods the server can send with now. */
  async deliveryMethods(opts?: CallOptions): Promise<DeliveryMethod[]> {
    const path = '/api/notification/deliveryMethods';
    let answer: unknown;
    try {
      answer = await this.requester.request('GET', path, undefined, opts);
    } catch (err) {
      throw aboutMissing(err);
    }
    if (!Array.isArray(answer) || !answer.every((m) => typeof m === 'string'))
      throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with something that is not a list of names`);
    return answer as DeliveryMethod[];
  }

  /**
   * The ids of targets or templates a node names: ids as they are, names looked up (exactly, then ignoring case)
   * and kept a minute. A name that matches nothing is a TB_NOT_FOUND error naming it.
   */
  async resolve(kind: 'target' | 'template', refs: readonly NamedRef[], opts?: CallOptions): Promise<string[]> {
    const out: string[] = [];
    for (const r of refs) {
      if ('id' in r) {
        out.push(r.id);
        continue;
      }
      const key = `${kind}\n${r.name}`;
      const hit = this.names.get(key);
      if (hit && Date.now() - hit.at < NAME_TTL_MS) {
        out.push(hit.id);
        continue;
      }
      const page = kind === 'target' ? await this.targets(r.name, opts) : await this.templates(r.name, opts);
      const named = (x: { name?: unknown }) => typeof x.name === 'string';
      const list = page.data.filter(named) as Array<{ name: string; id?: { id?: string } | null }>;
      const found =
        list.find((x) => x.name === r.name) ?? list.find((x) => x.name.toLowerCase() === r.name.toLowerCase());
      const id = found?.id?.id;
      if (!id)
        throw new TbError(
          'TB_NOT_FOUND',
          `Pick the ${kind} again: ThingsBoard has no notification ${kind} named "${r.name}"`,
        );
      this.names.set(key, { id, at: Date.now() });
      out.push(id);
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------------------------
  // The current user's inbox

  /** `PUT /api/notification/{id}/read`: 200 also for an id that is unknown or already read (nothing changes). */
  async markRead(id: string, opts?: CallOptions): Promise<void> {
    try {
      await this.requester.request('PUT', `/api/notification/${enc(id)}/read`, undefined, {
        ...opts,
        delivery: 'idempotent',
      });
    } catch (err) {
      throw aboutMissing(err);
    }
  }

  /** `PUT /api/notifications/read?deliveryMethod=WEB`: every unread web notification of the user. */
  async markAllRead(opts?: CallOptions): Promise<void> {
    try {
      await this.requester.request('PUT', '/api/notifications/read', undefined, {
        ...opts,
        delivery: 'idempotent',
        params: { deliveryMethod: 'WEB' },
      });
    } catch (err) {
      throw aboutMissing(err);
    }
  }

  /**
   * The user's unread web notifications (`GET /api/notifications/unread/count?deliveryMethod=WEB`; without the
   * parameter the server counts MOBILE_APP ones). null on a server before 3.7, which has no such endpoint.
   */
  async unreadCount(opts?: CallOptions): Promise<number | null> {
    const path = '/api/notifications/unread/count';
    let answer: unknown;
    try {
      answer = await this.requester.request('GET', path, undefined, { ...opts, params: { deliveryMethod: 'WEB' } });
    } catch (err) {
      if (isMissingEndpoint(err)) return null;
      throw err;
    }
    const n = typeof answer === 'string' ? Number(answer) : answer;
    if (typeof n !== 'number' || !Number.isFinite(n))
      throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered ${path} with something that is not a number`);
    return n;
  }
}

function isRequest(b: unknown): boolean {
  if (!b || typeof b !== 'object') return false;
  const r = b as { id?: { id?: unknown }; status?: unknown };
  return !!r.id && typeof r.id.id === 'string' && typeof r.status === 'string';
}

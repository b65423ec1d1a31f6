/**
 * The platform's look-up endpoints for an editor: profile names and entity view / edge types,
 * alarm types, the current user and the server version. Requests go through the Requester (auth, 401 retry,
 * 429 policy, our error classes). Nothing in here knows about Node-RED.
 *
 * Older servers lack some endpoints: `deviceProfile/names` and `assetProfile/names` came in 3.6.2 (before that
 * the paged `…ProfileInfos` are used, and remembered per client), and `/api/system/info` in 3.3.3 (before that,
 * or when the user may not read it, the version is unknown: null).
 */
import { TbApiError } from '../errors';
import type { ProfileEntityType } from '../protocol/lookups';
import type { EntityId, PageData } from '../protocol/types';
import { badAnswer, checkPage, isMissingEndpoint, type CallOptions, type Requester } from './requester';

/** `EntitySubtype` of the server: one distinct type of the tenant's entities (or alarms). */
export interface EntitySubtype {
  tenantId: EntityId;
  entityType: string;
  type: string;
}

/** The fields of `GET /api/auth/user` the package reads (the server sends more). */
export interface PlatformUser {
  id: EntityId;
  email: string;
  authority: string;
  tenantId?: EntityId;
  customerId?: EntityId;
  firstName?: string | null;
  lastName?: string | null;
}

export interface AlarmTypesPageLink {
  pageSize: number;
  page: number;
  textSearch?: string;
}

/** Page size used when paging through profile infos on a server without the names endpoints. */
const PROFILE_PAGE_SIZE = 100;
/** Never page through more than this many profile pages (10,000 profiles). */
const MAX_PROFILE_PAGES = 100;

const NAMES_PATH = { DEVICE: '/api/deviceProfile/names', ASSET: '/api/assetProfile/names' } as const;
const INFOS_PATH = { DEVICE: '/api/deviceProfileInfos', ASSET: '/api/assetProfileInfos' } as const;
const TYPES_PATH = { ENTITY_VIEW: '/api/entityView/types', EDGE: '/api/edge/types' } as const;

function namesOf(body: unknown, path: string, field: 'name' | 'type'): string[] {
  if (!Array.isArray(body)) throw badAnswer(path, 'something that is not a list');
  const out: string[] = [];
  for (const item of body) {
    const v = item && typeof item === 'object' ? (item as Record<string, unknown>)[field] : undefined;
    if (typeof v !== 'string') throw badAnswer(path, `an item without a ${field}`);
    out.push(v);
  }
  return out;
}

export class PlatformLookups {
  /** Which way each server answers profile names; learnt on first use. */
  private readonly namesApi: Partial<Record<'DEVICE' | 'ASSET', 'names' | 'infos'>> = {};

  constructor(private readonly requester: Requester) {}

  /**
   * The names of the tenant's device or asset profiles, or the distinct types of its entity views or edges, as
   * the server orders them. These are the values of the `deviceTypes` / `assetTypes` / `entityViewTypes` /
   * `edgeTypes` of an entity filter.
   */
  async profileNames(entityType: ProfileEntityType, opts?: CallOptions): Promise<string[]> {
    if (entityType === 'ENTITY_VIEW' || entityType === 'EDGE') {
      const path = TYPES_PATH[entityType];
      return namesOf(await this.requester.request('GET', path, undefined, opts), path, 'type');
    }
    if (this.namesApi[entityType] !== 'infos') {
      const path = NAMES_PATH[entityType];
      try {
        const names = namesOf(
          await this.requester.request('GET', path, undefined, { ...opts, params: { activeOnly: false } }),
          path,
          'name',
        );
        this.namesApi[entityType] = 'names';
        return names;
      } catch (err) {
        if (this.namesApi[entityType] === 'names' || !isMissingEndpoint(err)) throw err;
        this.namesApi[entityType] = 'infos';
      }
    }
    return this.profileNamesPaged(entityType, opts);
  }

  /** Servers before 3.6.2: every page of `…ProfileInfos`, sorted by name. */
  private async profileNamesPaged(entityType: 'DEVICE' | 'ASSET', opts?: CallOptions): Promise<string[]> {
    const path = INFOS_PATH[entityType];
    const names: string[] = [];
    for (let page = 0; page < MAX_PROFILE_PAGES; page++) {
      const params = { pageSize: PROFILE_PAGE_SIZE, page, sortProperty: 'name', sortOrder: 'ASC' };
      const p = checkPage<{ name?: unknown }>(
        await this.requester.request('GET', path, undefined, { ...opts, params }),
        path,
      );
      names.push(...namesOf(p.data, path, 'name'));
      if (!p.hasNext || p.data.length === 0) break;
    }
    return names;
  }

  /** One page of the tenant's alarm types (`GET /api/alarm/types`, 3.6+), `textSearch` = contains. */
  async alarmTypes(pageLink: AlarmTypesPageLink, opts?: CallOptions): Promise<PageData<EntitySubtype>> {
    const path = '/api/alarm/types';
    const params: Record<string, string | number> = { pageSize: pageLink.pageSize, page: pageLink.page };
    if (pageLink.textSearch) params.textSearch = pageLink.textSearch;
    const p = checkPage<EntitySubtype>(await this.requester.request('GET', path, undefined, { ...opts, params }), path);
    namesOf(p.data, path, 'type');
    return p;
  }

  /** The user the connection acts as (`GET /api/auth/user`): a cheap "does this connection work". */
  async currentUser(opts?: CallOptions): Promise<PlatformUser> {
    const path = '/api/auth/user';
    const body = await this.requester.request('GET', path, undefined, opts);
    const u = body as PlatformUser | undefined;
    if (!u || typeof u !== 'object' || typeof u.authority !== 'string')
      throw badAnswer(path, 'something that is not a user');
    return u;
  }

  private meOnce: Promise<PlatformUser> | undefined;

  /**
   * The connection's user, asked once for all who need it (alarm actions, the rule engine, notifications); a failed
   * look-up is asked again next time.
   */
  me(opts?: CallOptions): Promise<PlatformUser> {
    if (!this.meOnce) {
      const p = this.currentUser(opts);
      this.meOnce = p;
      p.catch(() => {
        if (this.meOnce === p) this.meOnce = undefined;
      });
    }
    return this.meOnce;
  }

  /**
   * The server's version (`GET /api/system/info`), or null when it cannot be known: the endpoint is missing
   * (before 3.3.3), refused (403), or the build has no version. Other failures are thrown.
   */
  async serverVersion(opts?: CallOptions): Promise<string | null> {
    try {
      const body = await this.requester.request('GET', '/api/system/info', undefined, opts);
      const v = body && typeof body === 'object' ? (body as { version?: unknown }).version : undefined;
      return typeof v === 'string' && v !== '' && v !== 'unknown' ? v : null;
    } catch (err) {
      if (isMissingEndpoint(err) || (err instanceof TbApiError && (err.status === 403 || err.status === 404)))
        return null;
      throw err;
    }
  }
}

/**
 * Entity and alarm queries over REST: find (one page, or page after page), count, key discovery, and one alarm by
 * id. It takes queries that the protocol core has already validated and made wire-ready; requests go through the
 * Requester (auth, the retry after 401 "token expired", the 429 policy, our error classes).
 */
import { fromKeysV1, fromKeysV2, type KeysResult } from '../protocol/format';
import {
  ATTRIBUTE_SCOPES,
  type AlarmCountQuery,
  type AlarmData,
  type AlarmDataQuery,
  type AttributeScope,
  type AvailableEntityKeys,
  type AvailableEntityKeysV2,
  type EntityCountQuery,
  type EntityData,
  type EntityDataQuery,
  type PageData,
} from '../protocol/types';
import type { KeysOptions } from '../protocol/validate';
import type { RequestOptions } from './http';
import { badAnswer, checkObject, checkPage, isMissingEndpoint, type CallOptions, type Requester } from './requester';

const PATH = {
  entityFind: '/api/entitiesQuery/find',
  entityCount: '/api/entitiesQuery/count',
  alarmFind: '/api/alarmsQuery/find',
  alarmCount: '/api/alarmsQuery/count',
  keysV1: '/api/entitiesQuery/find/keys',
  keysV2: '/api/v2/entitiesQuery/find/keys',
} as const;

/** One page of a paged query, as yielded by `pages()`. */
export interface PageChunk<T> {
  items: T[];
  page: PageData<T>;
  /** Index of this page (pageLink.page of the request). */
  pageIndex: number;
  /** True when maxItems cut the result short. */
  truncated: boolean;
}

export class EntityQueries {
  /** Which key-discovery endpoint the server has; learnt on first use. */
  private keysApi: 'v2' | 'v1' | undefined;

  constructor(private readonly requester: Requester) {}

  private post(path: string, body: unknown, opts?: RequestOptions): Promise<unknown> {
    return this.requester.request('POST', path, body, opts);
  }

  /** One alarm by id (GET /api/alarm/info/{id}); null when it no longer exists. */
  async getAlarmInfo(id: string): Promise<AlarmData | null> {
    try {
      const body = await this.requester.request('GET', `/api/alarm/info/${encodeURIComponent(id)}`, undefined);
      return checkObject<AlarmData>(body, '/api/alarm/info');
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
  }

  async findEntityData(query: EntityDataQuery, opts?: CallOptions): Promise<PageData<EntityData>> {
    return checkPage<EntityData>(await this.post(PATH.entityFind, query, opts), PATH.entityFind);
  }

  async countEntities(query: EntityCountQuery, opts?: CallOptions): Promise<number> {
    return checkCount(await this.post(PATH.entityCount, query, opts), PATH.entityCount);
  }

  async findAlarmData(query: AlarmDataQuery, opts?: CallOptions): Promise<PageData<AlarmData>> {
    return checkPage<AlarmData>(await this.post(PATH.alarmFind, query, opts), PATH.alarmFind);
  }

  async countAlarms(query: AlarmCountQuery, opts?: CallOptions): Promise<number> {
    return checkCount(await this.post(PATH.alarmCount, query, opts), PATH.alarmCount);
  }

  /**
   * Pages through a find query from its pageLink.page on, yielding one chunk per page, and stops after
   * `maxItems` items (the last chunk is cut and marked truncated) or when the server says there is no more.
   * Only one page is held at a time.
   */
  async *pages<T extends EntityData | AlarmData>(
    kind: 'entity' | 'alarm',
    query: EntityDataQuery | AlarmDataQuery,
    maxItems: number,
    opts?: CallOptions,
  ): AsyncGenerator<PageChunk<T>> {
    const path = kind === 'entity' ? PATH.entityFind : PATH.alarmFind;
    let pageIndex = query.pageLink.page ?? 0;
    let fetched = 0;
    for (;;) {
      const q = { ...query, pageLink: { ...query.pageLink, page: pageIndex } };
      const page = checkPage<T>(await this.post(path, q, opts), path);
      let items = page.data;
      let truncated = false;
      if (fetched + items.length >= maxItems && (page.hasNext || fetched + items.length > maxItems)) {
        truncated = true;
        items = items.slice(0, maxItems - fetched);
      }
      fetched += items.length;
      yield { items, page, pageIndex, truncated };
      if (truncated || !page.hasNext || page.data.length === 0) return;
      pageIndex++;
    }
  }

  /**
   * Available time-series and attribute keys of the entities a query matches, in one shape whatever the
   * server version: the v2 endpoint (4.3.1.2+) when the server has it, otherwise the v1 endpoint, once per
   * attribute scope.
   */
  async findKeys(query: EntityDataQuery, options: KeysOptions, opts?: CallOptions): Promise<KeysResult> {
    if (this.keysApi !== 'v1') {
      try {
        const params: Record<string, string | boolean> = {
          includeTimeseries: options.includeTimeseries,
          includeAttributes: options.includeAttributes,
        };
        if (options.scopes.length) params.scopes = options.scopes.join(',');
        const body = await this.post(PATH.keysV2, query, { ...opts, params });
        this.keysApi = 'v2';
        return fromKeysV2(checkObject<AvailableEntityKeysV2>(body, PATH.keysV2));
      } catch (err) {
        if (this.keysApi === 'v2' || !isMissingEndpoint(err)) throw err;
        this.keysApi = 'v1';
      }
    }
    return this.findKeysV1(query, options, opts);
  }

  private async findKeysV1(query: EntityDataQuery, options: KeysOptions, opts?: CallOptions): Promise<KeysResult> {
    const calls: Array<Promise<{ scope: AttributeScope | null; resp: AvailableEntityKeys }>> = [];
    const call = (scope: AttributeScope | null, timeseries: boolean, attributes: boolean) => {
      const params: Record<string, string | boolean> = { timeseries, attributes };
      if (scope) params.scope = scope;
      calls.push(
        this.post(PATH.keysV1, query, { ...opts, params }).then((b) => ({
          scope,
          resp: checkObject<AvailableEntityKeys>(b, PATH.keysV1),
        })),
      );
    };
    if (options.includeTimeseries) call(null, true, false);
    if (options.includeAttributes) {
      for (const scope of options.scopes.length ? options.scopes : ATTRIBUTE_SCOPES) call(scope, false, true);
    }
    const results = await Promise.all(calls);
    return fromKeysV1(results);
  }
}

function checkCount(body: unknown, path: string): number {
  if (typeof body !== 'number') throw badAnswer(path, 'something that is not a number');
  return body;
}

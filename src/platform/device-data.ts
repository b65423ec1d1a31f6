/**
 * Time series and attributes of an entity over REST: save, latest, history (page after page),
 * delete; attribute save, read (one scope, or each of the three), delete. Every request goes through
 * the Requester (auth, the retry after 401 "token expired", the 429 policy, our error classes), which
 * turns both error body shapes (the JSON error object, and the bare string or empty body most of these routes
 * answer) into errors with the server's words; 404 and 403 get a sentence naming the entity in front.
 * Requests that are validated here were validated by the node's logic first. Nothing in here knows about Node-RED.
 */
import { TbError } from '../errors';
import { checkAttributeList, type AttributeKv, type ScopeChoice } from '../protocol/attributes';
import {
  deleteParams,
  HistoryPager,
  historyParams,
  latestParams,
  type DeleteRequest,
  type HistoryRequest,
  type TimeseriesAnswer,
  type TsRecord,
} from '../protocol/telemetry';
import type { AttributeScope, EntityId } from '../protocol/types';
import { ATTRIBUTE_SCOPES } from '../protocol/types';
import { explained, statusOf } from './explain';
import type { HttpMethod, RequestOptions } from './http';
import type { CallOptions, Requester } from './requester';

/** Points per key asked in one history request (tunable: tbConnectionHistoryPageSize). */
export const DEFAULT_HISTORY_PAGE_SIZE = 10000;

export interface HistoryResult {
  series: TimeseriesAnswer;
  /** How many points were kept. */
  count: number;
  /** maxItems cut the range short. */
  truncated: boolean;
  /** How many requests were made. */
  pages: number;
}

const enc = encodeURIComponent;

function base(e: EntityId): string {
  return `/api/plugins/telemetry/${enc(e.entityType)}/${enc(e.id)}`;
}

type Verb =
  | 'save the time series of'
  | 'read the time series of'
  | 'delete the time series of'
  | 'save the attributes of'
  | 'read the attributes of'
  | 'delete the attributes of';

/** 404 / 403 of a request about one entity, in words (the server's own follow in brackets). */
function aboutEntity(err: unknown, e: EntityId, verb: Verb): unknown {
  const who = `${e.entityType} ${e.id}`;
  const status = statusOf(err);
  if (status === 404) return explained(err, `${who} was not found: it was deleted, or never existed`);
  if (status === 403) {
    const writes = verb.startsWith('save') || verb.startsWith('delete');
    let why = "a customer user may act only on its own customer's devices, assets, entity views and edges";
    if (e.entityType === 'TENANT' && writes)
      why =
        "a tenant administrator cannot write its own tenant's attributes or time series: ThingsBoard refuses it by " +
        'design';
    else if (e.entityType === 'CUSTOMER' && writes) why = 'a customer user cannot write its own customer entity';
    return explained(err, `ThingsBoard did not allow this connection's user to ${verb} ${who} (${why})`);
  }
  return err;
}

export class DeviceData {
  constructor(private readonly requester: Requester) {}

  private async call(
    method: HttpMethod,
    path: string,
    body: unknown,
    e: EntityId,
    verb: Verb,
    opts: RequestOptions,
  ): Promise<unknown> {
    try {
      return await this.requester.request(method, path, body, opts);
    } catch (err) {
      throw aboutEntity(err, e, verb);
    }
  }

  // -------------------------------------------------------------------------------------------------------------
  // Time series
  // -------------------------------------------------------------------------------------------------------------

  /**
   * `POST …/timeseries/ANY[/{ttl}]` with `[{ts, values}]`. Every point carries its ts, so the request can be
   * sent again without a second point: it is retried once after a connection lost mid-way, besides 429s.
   */
  async saveTimeseries(e: EntityId, records: TsRecord[], ttl: number | undefined, opts?: CallOptions): Promise<void> {
    const path = `${base(e)}/timeseries/ANY${ttl ? `/${ttl}` : ''}`;
    await this.call('POST', path, records, e, 'save the time series of', { ...opts, delivery: 'idempotent' });
  }

  /** `GET …/values/timeseries?keys&useStrictDataTypes=true`: the server's answer, checked to be an object. */
  async latest(e: EntityId, keys: string[], opts?: CallOptions): Promise<TimeseriesAnswer> {
    const path = `${base(e)}/values/timeseries`;
    const body = await this.call('GET', path, undefined, e, 'read the time series of', {
      ...opts,
      params: latestParams({ operation: 'latest', keys }),
      delivery: 'idempotent',
    });
    return checkSeries(body, path);
  }

  /** Every point of a range (or one request with a limit or an aggregation), page after page: see HistoryPager. */
  async history(e: EntityId, req: HistoryRequest, pageSize: number, opts?: CallOptions): Promise<HistoryResult> {
    const pager = new HistoryPager(req, pageSize);
    const path = `${base(e)}/values/timeseries`;
    for (let round = pager.next(); round.length; round = pager.next()) {
      for (const page of round) {
        const body = await this.call('GET', path, undefined, e, 'read the time series of', {
          ...opts,
          params: historyParams(req, page),
          delivery: 'idempotent',
        });
        pager.add(page, body === undefined ? {} : body);
      }
    }
    return { series: pager.series(), count: pager.count, truncated: pager.truncated, pages: pager.pages };
  }

  /** `DELETE …/timeseries/delete?keys&…`. */
  async deleteTimeseries(e: EntityId, req: DeleteRequest, opts?: CallOptions): Promise<void> {
    await this.call('DELETE', `${base(e)}/timeseries/delete`, undefined, e, 'delete the time series of', {
      ...opts,
      params: deleteParams(req),
    });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Attributes
  // -------------------------------------------------------------------------------------------------------------

  /**
   * `POST …/attributes/{scope}` with `{key: value}` (the same values again change nothing: retried once after a lost
   * connection).
   */
  async saveAttributes(
    e: EntityId,
    scope: AttributeScope,
    values: Record<string, unknown>,
    opts?: CallOptions,
  ): Promise<void> {
    await this.call('POST', `${base(e)}/attributes/${scope}`, values, e, 'save the attributes of', {
      ...opts,
      delivery: 'idempotent',
    });
  }

  /** `GET …/values/attributes/{scope}?keys`: a list of `{key, value, lastUpdateTs}`. */
  async readAttributes(e: EntityId, scope: AttributeScope, keys: string[], opts?: CallOptions): Promise<AttributeKv[]> {
    const params: Record<string, string> = {};
    if (keys.length) params.keys = keys.join(',');
    const body = await this.call(
      'GET',
      `${base(e)}/values/attributes/${scope}`,
      undefined,
      e,
      'read the attributes of',
      { ...opts, params, delivery: 'idempotent' },
    );
    return checkAttributeList(body);
  }

  /**
   * The attributes of one scope, or of each scope (`any`: three requests, never the server's merged list, which
   * loses the scope).
   */
  async readScopes(
    e: EntityId,
    scope: ScopeChoice,
    keys: string[],
    opts?: CallOptions,
  ): Promise<Partial<Record<AttributeScope, AttributeKv[]>>> {
    const scopes: readonly AttributeScope[] = scope === 'any' ? ATTRIBUTE_SCOPES : [scope];
    const out: Partial<Record<AttributeScope, AttributeKv[]>> = {};
    for (const s of scopes) out[s] = await this.readAttributes(e, s, keys, opts);
    return out;
  }

  /** `DELETE …/{scope}?keys` (keys that do not exist are ignored by the server). */
  async deleteAttributes(e: EntityId, scope: AttributeScope, keys: string[], opts?: CallOptions): Promise<void> {
    await this.call('DELETE', `${base(e)}/${scope}`, undefined, e, 'delete the attributes of', {
      ...opts,
      params: { keys: keys.join(',') },
    });
  }
}

function checkSeries(body: unknown, path: string): TimeseriesAnswer {
  if (body === undefined) return {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new TbError(
      'TB_BAD_RESPONSE',
      `ThingsBoard answered ${path} with something that is not an object of key → values`,
    );
  }
  return body as TimeseriesAnswer;
}

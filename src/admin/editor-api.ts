/**
 * What the editor asks a deployed connection for: picker suggestions (profiles, entities, keys, alarm types),
 * a preview of a node's query, and a connection test. One EditorApi per platform client, so a redeployed
 * connection (a new client) starts with an empty cache. No Node-RED in here: parameters come in as a plain
 * object, answers go out as JSON-ready values, failures as our errors (bad parameters as TbInputError naming the
 * parameter). The routes put it behind the admin HTTP API.
 *
 * Look-ups are cached (see LookupCache); preview and test never are. Queries are validated by the same prepare
 * functions the nodes use, and sent with the same PlatformClient calls.
 */
import { TbApiError, TbError, TbInputError } from '../errors';
import type { ApiAnswer } from '../platform/api-call';
import type { PlatformClient } from '../platform/client';
import type { PlatformLookups } from '../platform/lookups';
import {
  isNoAuthPath,
  parseQueryText,
  pathWithQuery,
  preparePath,
  prepareMethod,
  splitPathAndQuery,
} from '../protocol/api-call';
import { suggestionsFor, type ApiPathSuggestion } from '../protocol/api-paths';
import {
  formatAlarms,
  formatEntities,
  pageInfo,
  RESULT_FORMATS,
  type KeysResult,
  type PageInfo,
  type ResultFormat,
} from '../protocol/format';
import {
  entityKeysQuery,
  entityNames,
  entitySearchQuery,
  literalTextSearch,
  LOOKUP_ENTITY_TYPES,
  nameListParam,
  oneOfParam,
  parseIds,
  PROFILE_ENTITY_TYPES,
  profileKeysQuery,
} from '../protocol/lookups';
import { TARGET_METHODS, templateMethods, type DeliveryMethod, type TargetType } from '../protocol/notifications';
import type { EntityId } from '../protocol/types';
import {
  prepareAlarmCountQuery,
  prepareAlarmDataQuery,
  prepareEntityCountQuery,
  prepareEntityDataQuery,
  prepareKeysOptions,
} from '../protocol/validate';
import { filterEntityType } from '../query-model/schema';
import { LookupCache } from './cache';

/** Query-string parameters as a web framework hands them over (a value may be repeated or nested). */
export type Params = Record<string, unknown>;

export interface EditorApiOptions {
  /** How long look-up answers are reused (ms). */
  cacheMs: number;
  /** How many look-up answers are kept. */
  cacheSize: number;
}

export const DEFAULT_EDITOR_OPTIONS: EditorApiOptions = { cacheMs: 30000, cacheSize: 200 };

/** Alarm types offered per search (one page of the server's list). */
export const ALARM_TYPES_LIMIT = 100;
const MAX_SEARCH_LENGTH = 200;

export interface Items<T> {
  items: T[];
}

export interface PreviewResult {
  payload: unknown;
  page?: PageInfo;
  /**
   * Only when the query selects nothing and has conditions (key filters): how many the same query selects without
   * them, and of which entity type ('ALARM' for an alarm query; absent when the filter mixes types). It tells
   * "the conditions exclude them" from "nothing of the kind exists".
   */
  withoutConditions?: { count: number; entityType?: string };
}

/** A query without its key filters. */
function withoutKeyFilters<T extends { keyFilters?: unknown; keyFiltersOperation?: unknown }>(q: T): T {
  const bare = { ...q };
  delete bare.keyFilters;
  delete bare.keyFiltersOperation;
  return bare;
}

/** The calls tb-api's dialog suggests for the connected server (`serverVersion`, `authority`: null when unknown). */
export interface ApiPathsResult {
  serverVersion: string | null;
  authority: string | null;
  items: ApiPathSuggestion[];
}

/** The most of an answer's text the try shows (the dialog shows the start of a long answer). */
export const TRY_TEXT_MAX = 20000;

/**
 * What tb-api's try answered: the status, the content type and the answer's start as text (JSON pretty-printed),
 * or a file's name, type and size; or, when the server refused, its status and message (`ok: false`).
 */
export type ApiTryResult =
  | {
      ok: true;
      statusCode: number;
      contentType: string;
      kind: ApiAnswer['kind'];
      text?: string;
      cut?: boolean;
      file?: { name?: string; contentType: string; size: number };
      path: string;
    }
  | { ok: false; statusCode?: number; code: string; message: string; path: string };

export type TestResult =
  | { ok: true; user: string; authority: string; serverVersion: string | null }
  | { ok: false; code: string; message: string };

/** The operations the preview can run, per node type (the first one is the node's default). */
export const PREVIEW_OPERATIONS = {
  'tb-entity-query': ['find', 'keys'],
  'tb-entity-count': ['count'],
  'tb-alarm-query': ['find', 'count'],
  'tb-subscribe': ['entityData', 'entityCount', 'alarmData', 'alarmCount'],
  // The entities a trigger watches, and how many they are (its dialog's sentence).
  'tb-trigger': ['entityData', 'entityCount'],
} as const;
type PreviewNode = keyof typeof PREVIEW_OPERATIONS;
const PREVIEW_NODES = Object.keys(PREVIEW_OPERATIONS) as PreviewNode[];

type Run = 'entityFind' | 'entityCount' | 'entityKeys' | 'alarmFind' | 'alarmCount';
/** What each node/operation runs over REST (tb-subscribe's kinds as their REST find or count: never a subscription). */
const RUNS: Record<string, Run> = {
  'tb-entity-query/find': 'entityFind',
  'tb-entity-query/keys': 'entityKeys',
  'tb-entity-count/count': 'entityCount',
  'tb-alarm-query/find': 'alarmFind',
  'tb-alarm-query/count': 'alarmCount',
  'tb-subscribe/entityData': 'entityFind',
  'tb-subscribe/entityCount': 'entityCount',
  'tb-subscribe/alarmData': 'alarmFind',
  'tb-subscribe/alarmCount': 'alarmCount',
  'tb-trigger/entityData': 'entityFind',
  'tb-trigger/entityCount': 'entityCount',
};

/** Names sorted the way the server sorts them (Java String order), then filtered by a case-insensitive "contains". */
function containing(names: readonly string[], search: string): string[] {
  const needle = search.toLowerCase();
  const out = needle === '' ? names.slice() : names.filter((n) => n.toLowerCase().includes(needle));
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** An optional single string parameter. */
function stringParam(params: Params, name: string, maxLength = MAX_SEARCH_LENGTH): string | undefined {
  const v = params[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new TbInputError(name, `${name} must be given once, as text`);
  if (v.length > maxLength)
    throw new TbInputError(name, `${name} may be at most ${maxLength} characters long (got ${v.length})`);
  return v;
}

function asObject(body: unknown): Params {
  if (body && typeof body === 'object' && !Array.isArray(body)) return body as Params;
  throw new TbInputError('body', 'The request body must be a JSON object {node, operation, query, format}');
}

export class EditorApi {
  private readonly cache: LookupCache;
  private readonly lookups: PlatformLookups;

  constructor(
    private readonly client: PlatformClient,
    opts: EditorApiOptions = DEFAULT_EDITOR_OPTIONS,
  ) {
    this.cache = new LookupCache({ ttlMs: opts.cacheMs, maxEntries: opts.cacheSize });
    this.lookups = client.lookups;
  }

  /** `{items: [{name}]}`: device/asset profile names or entity view/edge types, sorted, `search` = contains. */
  async profiles(params: Params): Promise<Items<{ name: string }>> {
    const entityType = oneOfParam(params.entityType, PROFILE_ENTITY_TYPES, 'entityType');
    const search = (stringParam(params, 'search') ?? '').trim();
    // The whole list is small and cached once per type: typing filters it here, without a request.
    const names = await this.cache.get(`profiles\n${entityType}`, () => this.lookups.profileNames(entityType));
    return { items: containing(names, search).map((name) => ({ name })) };
  }

  /**
   * `{items: [{id, name}]}`: entities of a type whose name contains `search` (at most 50, by name), or the names
   * of the entities in `ids` (those that exist and the user may see).
   */
  async entities(params: Params): Promise<Items<{ id: EntityId; name: string }>> {
    const entityType = oneOfParam(params.entityType, LOOKUP_ENTITY_TYPES, 'entityType');
    const search = stringParam(params, 'search');
    if (params.ids !== undefined) {
      if (search !== undefined) throw new TbInputError('ids', 'Give either ids (to resolve names) or search, not both');
      const ids = parseIds(params.ids, 'ids');
      if (ids.length === 0) return { items: [] };
      const key = `names\n${entityType}\n${[...ids].sort().join(',')}`;
      return this.cache.get(key, async () => ({
        items: [...(await this.client.entityNames(entityType, ids))].map(([id, name]) => ({
          id: { entityType, id },
          name,
        })),
      }));
    }
    const text = (search ?? '').trim();
    return this.cache.get(`entities\n${entityType}\n${text.toLowerCase()}`, async () => ({
      items: entityNames((await this.client.findEntityData(entitySearchQuery(entityType, text))).data),
    }));
  }

  /**
   * The keys of the entities of a type, of the given profiles (`profiles=a,b`, device/asset profiles or entity
   * view/edge types) or all of them, or the entities' own keys (`ids=<uuid>,<uuid>`: the fixed entities of a
   * device action): the runtime's keys shape `{entityTypes, timeseries, attributes}`.
   */
  async keys(params: Params): Promise<KeysResult> {
    const entityType = oneOfParam(params.entityType, LOOKUP_ENTITY_TYPES, 'entityType');
    if (params.ids !== undefined) {
      if (params.profiles !== undefined)
        throw new TbInputError('ids', "Give either ids (the entities' own keys) or profiles, not both");
      const ids = parseIds(params.ids, 'ids');
      if (ids.length === 0) return { entityTypes: [], timeseries: [], attributes: {} };
      const key = `entityKeys\n${entityType}\n${[...ids].sort().join(',')}`;
      return this.cache.get(key, () =>
        this.client.findKeys(entityKeysQuery(entityType, ids), prepareKeysOptions(undefined)),
      );
    }
    const profiles = nameListParam(params.profiles, 'profiles');
    if (profiles.length > 0 && !(PROFILE_ENTITY_TYPES as readonly string[]).includes(entityType)) {
      throw new TbInputError(
        'profiles',
        `profiles can only be given with entityType ${PROFILE_ENTITY_TYPES.join(', ')} (got entityType ${entityType})`,
      );
    }
    const key = `keys\n${entityType}\n${[...profiles].sort().join('\n')}`;
    return this.cache.get(key, () =>
      this.client.findKeys(profileKeysQuery(entityType, profiles), prepareKeysOptions(undefined)),
    );
  }

  /** `{items: ["High Temperature", …]}`: the tenant's alarm types whose name contains `search` (at most 100). */
  async alarmTypes(params: Params): Promise<Items<string>> {
    const search = (stringParam(params, 'search') ?? '').trim();
    return this.cache.get(`alarmTypes\n${search.toLowerCase()}`, async () => {
      const page = await this.lookups.alarmTypes({
        pageSize: ALARM_TYPES_LIMIT,
        page: 0,
        textSearch: search ? literalTextSearch(search) : undefined,
      });
      return { items: page.data.map((t) => t.type) };
    });
  }

  /**
   * `{items: [{id, name, type, methods}]}`: the notification targets whose name contains `search` (at most 100, by
   * name), with the delivery methods each can carry.
   */
  async notificationTargets(
    params: Params,
  ): Promise<Items<{ id: string; name: string; type: string; methods: DeliveryMethod[] }>> {
    const search = (stringParam(params, 'search') ?? '').trim();
    return this.cache.get(`notificationTargets\n${search.toLowerCase()}`, async () => {
      const page = await this.client.notifications.targets(search ? literalTextSearch(search) : '');
      return {
        items: page.data
          .filter((t) => t && t.id && typeof t.name === 'string')
          .map((t) => {
            const type = String(t.configuration?.type ?? '');
            return { id: t.id.id, name: t.name, type, methods: [...(TARGET_METHODS[type as TargetType] ?? [])] };
          }),
      };
    });
  }

  /** `{items: [{id, name, methods}]}`: the notification templates whose name contains `search` (at most 100). */
  async notificationTemplates(params: Params): Promise<Items<{ id: string; name: string; methods: DeliveryMethod[] }>> {
    const search = (stringParam(params, 'search') ?? '').trim();
    return this.cache.get(`notificationTemplates\n${search.toLowerCase()}`, async () => {
      const page = await this.client.notifications.templates(search ? literalTextSearch(search) : '');
      return {
        items: page.data
          .filter((t) => t && t.id && typeof t.name === 'string')
          .map((t) => ({ id: t.id.id, name: t.name, methods: templateMethods(t) })),
      };
    });
  }

  /** `{items: ["WEB", "EMAIL", …]}`: the delivery methods the server can send with now. */
  async deliveryMethods(): Promise<Items<DeliveryMethod>> {
    return this.cache.get('deliveryMethods', async () => ({
      items: await this.client.notifications.deliveryMethods(),
    }));
  }

  /**
   * Runs a node's query once, as the node would send it, and answers the first page (`{payload, page}`), the
   * count (`{payload: n}`) or the keys (`{payload: keys}`). tb-subscribe's kinds run as their REST find or count.
   */
  async preview(body: unknown): Promise<PreviewResult> {
    const b = asObject(body);
    const node = oneOfParam(b.node, PREVIEW_NODES, 'node');
    const operations: readonly string[] = PREVIEW_OPERATIONS[node];
    const operation =
      b.operation === undefined || b.operation === null || b.operation === ''
        ? operations[0]
        : oneOfParam(b.operation, operations, 'operation');
    const format: ResultFormat =
      b.format === undefined || b.format === null || b.format === ''
        ? 'flat'
        : oneOfParam(b.format, RESULT_FORMATS, 'format');
    // A node treats an empty query text as no query (QuerySource): so does the preview.
    const input = typeof b.query === 'string' && b.query.trim() === '' ? undefined : b.query;
    // Every run below is a REST call (tb-subscribe's kinds too), so the query is validated for REST.
    const rest = { live: false };
    switch (RUNS[`${node}/${operation}`]) {
      case 'entityFind': {
        const q = prepareEntityDataQuery(input, 'query', rest);
        const page = await this.client.findEntityData(q);
        const result = { payload: formatEntities(page.data, format), page: pageInfo(page, q.pageLink) };
        return this.explainEmpty(result, page.totalElements, q, () =>
          this.client.countEntities(withoutKeyFilters(prepareEntityCountQuery(input, 'query', rest))),
        );
      }
      case 'alarmFind': {
        const q = prepareAlarmDataQuery(input, 'query', rest);
        const page = await this.client.findAlarmData(q);
        const result = { payload: formatAlarms(page.data, format), page: pageInfo(page, q.pageLink) };
        return this.explainEmpty(
          result,
          page.totalElements,
          q,
          () => this.client.countAlarms(withoutKeyFilters(prepareAlarmCountQuery(input, 'query', rest))),
          'ALARM',
        );
      }
      case 'entityCount': {
        const q = prepareEntityCountQuery(input, 'query', rest);
        const n = await this.client.countEntities(q);
        return this.explainEmpty({ payload: n }, n, q, () => this.client.countEntities(withoutKeyFilters(q)));
      }
      case 'alarmCount': {
        const q = prepareAlarmCountQuery(input, 'query', rest);
        const n = await this.client.countAlarms(q);
        return this.explainEmpty({ payload: n }, n, q, () => this.client.countAlarms(withoutKeyFilters(q)), 'ALARM');
      }
      case 'entityKeys':
        return {
          payload: await this.client.findKeys(
            prepareEntityDataQuery(input, 'query', rest),
            prepareKeysOptions(undefined),
          ),
        };
      default:
        // Unreachable: every node/operation pair above has a run.
        throw new TbError('TB_BAD_REQUEST', `No preview for ${node} ${operation}`);
    }
  }

  /**
   * An answer of nothing (`total` 0) to a query with conditions: adds what the query selects without them (one
   * count request, `countBare`), so that the editor can say whether the conditions exclude everything.
   */
  private async explainEmpty(
    result: PreviewResult,
    total: number,
    q: { entityFilter?: unknown; keyFilters?: unknown[] },
    countBare: () => Promise<number>,
    entityType = filterEntityType(q.entityFilter),
  ): Promise<PreviewResult> {
    if (total !== 0 || !q.keyFilters || q.keyFilters.length === 0) return result;
    let count: number;
    try {
      count = await countBare();
    } catch {
      // Only an explanation: the answer itself (nothing) stands without it.
      return result;
    }
    return { ...result, withoutConditions: entityType === undefined ? { count } : { count, entityType } };
  }

  /**
   * The calls tb-api's dialog suggests: those the server's version has and its user may call (all of them when the
   * version or the user cannot be read).
   */
  async apiPaths(): Promise<ApiPathsResult> {
    const [serverVersion, authority] = await Promise.all([
      this.cache.get('serverVersion', () => this.lookups.serverVersion()).catch(() => null),
      this.cache.get('authority', async () => (await this.lookups.currentUser()).authority).catch(() => null),
    ]);
    return { serverVersion, authority, items: suggestionsFor(serverVersion, authority) };
  }

  /**
   * tb-api's try before deploy: one GET of a path checked as the node checks it (placeholders must be filled in
   * already: the dialog does it with the values typed to try), sent as the node sends it. Only GET: a call that
   * changes something is never sent from the dialog. The server's refusal is an answer too (`ok: false`).
   */
  async apiTry(body: unknown): Promise<ApiTryResult> {
    const b = asObject(body);
    const method = b.method === undefined ? 'GET' : prepareMethod(b.method, 'method');
    if (method !== 'GET')
      throw new TbInputError(
        'method',
        'Only a GET is tried before deploy: a call that changes something is sent by the node',
      );
    if (typeof b.path !== 'string') throw new TbInputError('path', 'path must be the path to try, as text');
    if (/\{\{[^{}]*\}\}/.test(b.path))
      throw new TbInputError('path', 'path still holds a placeholder: give it a value to try with');
    const split = splitPathAndQuery(b.path.trim());
    const path = pathWithQuery(preparePath(split.path, 'path'), parseQueryText(split.query));
    try {
      const a = await this.client.api.call({ method, path, noAuth: isNoAuthPath(path) });
      const contentType = a.headers['content-type'] ?? '';
      if (a.kind === 'file') {
        const size = (a.payload as Buffer).length;
        return {
          ok: true,
          statusCode: a.statusCode,
          contentType,
          kind: a.kind,
          file: { name: a.filename, contentType: a.contentType ?? '', size },
          path,
        };
      }
      if (a.kind === 'empty') return { ok: true, statusCode: a.statusCode, contentType, kind: a.kind, path };
      const full = a.kind === 'json' ? JSON.stringify(a.payload, null, 2) : String(a.payload);
      const cut = full.length > TRY_TEXT_MAX;
      return {
        ok: true,
        statusCode: a.statusCode,
        contentType,
        kind: a.kind,
        text: cut ? full.slice(0, TRY_TEXT_MAX) : full,
        cut,
        path,
      };
    } catch (err) {
      if (!(err instanceof TbError)) throw err;
      const statusCode = err instanceof TbApiError ? err.status : undefined;
      return { ok: false, statusCode, code: err.code, message: err.message, path };
    }
  }

  /** Logs in (if needed) and reads the current user and the server version. Never throws. */
  async test(): Promise<TestResult> {
    try {
      const user = await this.lookups.currentUser();
      let serverVersion: string | null;
      try {
        serverVersion = await this.lookups.serverVersion();
      } catch {
        serverVersion = null; // the version is optional: the connection itself works
      }
      return {
        ok: true,
        user: typeof user.email === 'string' ? user.email : '',
        authority: user.authority,
        serverVersion,
      };
    } catch (err) {
      if (err instanceof TbError) return { ok: false, code: err.code, message: err.message };
      return { ok: false, code: 'TB_ERROR', message: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Forgets every cached look-up. */
  clearCache(): void {
    this.cache.clear();
  }
}

const perClient = new WeakMap<PlatformClient, EditorApi>();

/**
 * The EditorApi of a platform client, created on first use with `opts`. A redeployed connection has a new client
 * and so a new, empty cache.
 */
export function editorApiFor(client: PlatformClient, opts: EditorApiOptions = DEFAULT_EDITOR_OPTIONS): EditorApi {
  let api = perClient.get(client);
  if (!api) {
    api = new EditorApi(client, opts);
    perClient.set(client, api);
  }
  return api;
}

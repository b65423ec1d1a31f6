/**
 * tb-telemetry's per-message work: the operation (the node's, or msg.operation), the request of each message
 * (options read from the node's settings, those left empty from the message, and checked before anything is sent;
 * a save's values from msg.payload or the dialog's rows), the REST call of each entity and what it puts on the
 * message.
 */
import type { NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import type { Props } from '../../families/device-action';
import type { ValueRows } from '../../families/value-rows';
import { countStatus, status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import { DEFAULT_HISTORY_PAGE_SIZE } from '../../platform/device-data';
import type { CallOptions } from '../../platform/requester';
import {
  historyPoints,
  latestPoints,
  oldestFirst,
  seriesName,
  singleSeries,
  type ChartPoint,
} from '../../protocol/dashboard';
import { LOOKUP_ENTITY_TYPES, type LookupEntityType } from '../../protocol/lookups';
import type { Targets } from '../../protocol/targets';
import { type TelemetryRequest } from '../../protocol/telemetry';
import type { EntityId } from '../../protocol/types';
import type { Bag, OptionReader } from '../../settings/options';
import { prepareOperation } from '../../settings/options';
import { flatLatest, historyRows, prepareTelemetryRequest } from './logic';
import { TB_TELEMETRY, TELEMETRY_OPERATIONS, type TelemetryFormat, type TelemetryOperation } from './settings';

/**
 * The request of one message, for the node's `operation` setting (throws a TbInputError before anything is sent); a
 * save's values from msg.payload or `rows`.
 */
export async function telemetryRequest(
  setting: string,
  msg: NodeMessageInFlow,
  now: number,
  options: OptionReader,
  rows: ValueRows,
): Promise<TelemetryRequest> {
  const operation: TelemetryOperation = prepareOperation(
    setting,
    msg as unknown as Bag,
    TELEMETRY_OPERATIONS,
    TB_TELEMETRY.settings.operation.default as TelemetryOperation,
  );
  if (operation !== 'save') return prepareTelemetryRequest(operation, options, msg.payload, now);
  const { values, fromRows } = await rows.of(msg);
  return prepareTelemetryRequest(operation, options, values, now, fromRows);
}

/** One entity's work: the REST call and the message properties it gives. */
export async function telemetryWork(
  client: PlatformClient,
  e: EntityId,
  req: TelemetryRequest,
  format: TelemetryFormat,
  pageSize: number = DEFAULT_HISTORY_PAGE_SIZE,
  call = {},
): Promise<Props> {
  const data = client.deviceData;
  switch (req.operation) {
    case 'save':
      await data.saveTimeseries(e, req.records, req.ttl, call);
      return { payload: req.records };
    case 'latest': {
      const answer = await data.latest(e, req.keys, call);
      if (format === 'raw') return { payload: answer };
      if (format === 'chart') return chartProps(latestPoints(answer));
      const flat = flatLatest(answer);
      return { payload: flat.values, ts: flat.ts };
    }
    case 'history': {
      const h = await data.history(e, req, pageSize, call);
      const props: Props =
        format === 'chart'
          ? chartProps(historyPoints(h.series))
          : { payload: format === 'raw' ? h.series : historyRows(h.series, req.order) };
      if (h.truncated) props.truncated = true;
      return props;
    }
    default:
      // What was done, where a debug node looks first: the keys deleted.
      await data.deleteTimeseries(e, req, call);
      return { payload: [...req.keys], deleted: req.keys };
  }
}

/**
 * A chart's message properties: the points, `action: "replace"` (a chart draws them afresh, not after the last run's),
 * and msg.topic = their series when they are of one (else msg.topic stays as it came).
 */
function chartProps(points: ChartPoint[]): Props {
  const props: Props = { payload: points, action: 'replace' };
  const one = singleSeries(points);
  if (one !== undefined) props.topic = one;
  return props;
}

/**
 * The names of the entities of a list: those its items brought (query rows), the others looked up on the server, by
 * type. An entity the look-up does not find (or of a type it cannot read) is named by its id.
 */
export async function entityNamesOf(client: PlatformClient, targets: Targets, call: CallOptions): Promise<string[]> {
  const names = targets.entities.map((e, i) => targets.names?.[i]);
  const missing = new Map<LookupEntityType, string[]>();
  targets.entities.forEach((e, i) => {
    if (names[i] !== undefined || !(LOOKUP_ENTITY_TYPES as readonly string[]).includes(e.entityType)) return;
    const type = e.entityType as LookupEntityType;
    const ids = missing.get(type) ?? [];
    if (!ids.includes(e.id)) ids.push(e.id);
    missing.set(type, ids);
  });
  const found = new Map<string, string>();
  for (const [type, ids] of missing)
    for (const [id, name] of await client.entityNames(type, ids, call)) found.set(id, name);
  return targets.entities.map((e, i) => names[i] ?? found.get(e.id) ?? e.id);
}

/**
 * The chart of a list of entities (latest or history read for each): one list of points, each series named
 * "<entity name> · <key>", oldest first, in msg.payload; `action: "replace"`; msg.topic the series when there is one
 * only; the entities that failed, `{ entity, error }`, in msg.failures (when some did); a cut history says
 * msg.truncated.
 */
export async function chartOfList(
  client: PlatformClient,
  targets: Targets,
  results: ReadonlyArray<Record<string, unknown>>,
  call: CallOptions,
): Promise<Props> {
  const names = await entityNamesOf(client, targets, call);
  const points: ChartPoint[] = [];
  const failures: Array<Record<string, unknown>> = [];
  let truncated = false;
  results.forEach((r, i) => {
    if (!r.ok) {
      failures.push({ entity: r.entity, error: r.error });
      return;
    }
    if (r.truncated) truncated = true;
    for (const p of r.payload as ChartPoint[]) points.push({ ...p, series: seriesName(p.key, names[i]) });
  });
  const props = chartProps(oldestFirst(points));
  if (failures.length) props.failures = failures;
  if (truncated) props.truncated = true;
  return props;
}

/** Green (yellow when a history read was cut at maxItems): what was done. */
export function telemetryStatus(
  RED: NodeAPI,
  req: TelemetryRequest,
  props: Props,
  format: TelemetryFormat = 'flat',
): NodeStatus {
  switch (req.operation) {
    case 'save':
      return status(RED, 'green', 'dot', 'saved');
    case 'latest': {
      const p = props.payload;
      const count = p && typeof p === 'object' ? Object.keys(p).length : 0;
      return countStatus(RED, count, 'values', 'oneValue', 'noValues');
    }
    case 'history': {
      // Flat: rows (one per ts); raw and chart: points.
      const p = props.payload;
      let count = 0;
      if (Array.isArray(p)) count = p.length;
      else if (p && typeof p === 'object') for (const v of Object.values(p)) count += Array.isArray(v) ? v.length : 0;
      if (props.truncated) return status(RED, 'yellow', 'dot', 'pointsCut', { count });
      return Array.isArray(p) && format !== 'chart'
        ? countStatus(RED, count, 'rows', 'oneRow', 'noRows')
        : countStatus(RED, count, 'points', 'onePoint', 'noPoints');
    }
    default:
      return status(RED, 'green', 'dot', 'deleted');
  }
}

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
import { type TelemetryRequest } from '../../protocol/telemetry';
import type { EntityId } from '../../protocol/types';
import type { Bag, OptionReader } from '../../settings/options';
import { prepareOperation } from '../../settings/options';
import { flatLatest, historyRows, prepareTelemetryRequest } from './logic';
import { TB_TELEMETRY, TELEMETRY_OPERATIONS, type TelemetryOperation } from './settings';

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
  format: 'flat' | 'raw',
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
      const flat = flatLatest(answer);
      return { payload: flat.values, ts: flat.ts };
    }
    case 'history': {
      const h = await data.history(e, req, pageSize, call);
      const props: Props = { payload: format === 'raw' ? h.series : historyRows(h.series, req.order) };
      if (h.truncated) props.truncated = true;
      return props;
    }
    default:
      // What was done, where a debug node looks first: the keys deleted.
      await data.deleteTimeseries(e, req, call);
      return { payload: [...req.keys], deleted: req.keys };
  }
}

/** Green (yellow when a history read was cut at maxItems): what was done. */
export function telemetryStatus(RED: NodeAPI, req: TelemetryRequest, props: Props): NodeStatus {
  switch (req.operation) {
    case 'save':
      return status(RED, 'green', 'dot', 'saved');
    case 'latest': {
      const p = props.payload;
      const count = p && typeof p === 'object' ? Object.keys(p).length : 0;
      return countStatus(RED, count, 'values', 'oneValue', 'noValues');
    }
    case 'history': {
      // Flat: rows (one per ts); raw: points.
      const p = props.payload;
      let count = 0;
      if (Array.isArray(p)) count = p.length;
      else if (p && typeof p === 'object') for (const v of Object.values(p)) count += Array.isArray(v) ? v.length : 0;
      if (props.truncated) return status(RED, 'yellow', 'dot', 'pointsCut', { count });
      return Array.isArray(p)
        ? countStatus(RED, count, 'rows', 'oneRow', 'noRows')
        : countStatus(RED, count, 'points', 'onePoint', 'noPoints');
    }
    default:
      return status(RED, 'green', 'dot', 'deleted');
  }
}

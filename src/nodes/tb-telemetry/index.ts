/**
 * tb-telemetry: save, read (latest or history) or delete the time series of an entity, or of each entity of a list.
 * Wiring only: the per-message work is run.ts, its checks logic.ts, the settings settings.ts; the rest, which the
 * device actions share, is their family's (deviceActionNode).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { deviceActionNode, savePayloadUse } from '../../families/device-action';
import { ValueRows } from '../../families/value-rows';
import { setting } from '../../node-red/connection';
import { nodeSettings } from '../../node-red/settings';
import { DEFAULT_HISTORY_PAGE_SIZE } from '../../platform/device-data';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { chartOfList, telemetryRequest, telemetryStatus, telemetryWork } from './run';
import { TB_TELEMETRY } from './settings';

export default function (RED: NodeAPI): void {
  function TbTelemetry(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const read = nodeSettings(this, TB_TELEMETRY, MIGRATIONS, config, { RED, label });
    const s = read.values;
    const pageSize =
      setting(RED, 'tbConnectionHistoryPageSize', DEFAULT_HISTORY_PAGE_SIZE) || DEFAULT_HISTORY_PAGE_SIZE;
    const rows = new ValueRows(RED, this, s);
    deviceActionNode(RED, this, read, 'tb-telemetry', (action) => ({
      problems: [rows.problem],
      settings: Object.keys(fromMessage(TB_TELEMETRY)),
      fixed: ['operation'],
      payloadUse: (msg) => savePayloadUse(s, msg),
      request: (msg, now, options) => telemetryRequest(s.operation, msg, now, options, rows),
      work: (client, req) => ({ each: (e) => telemetryWork(client, e, req, s.format, pageSize, action.call) }),
      status: (req, props) => telemetryStatus(RED, req, props, s.format),
      // For a chart, a list of entities gives one list of points, each entity's series named after it.
      combine: (req, targets, client) =>
        s.format === 'chart' && (req.operation === 'latest' || req.operation === 'history')
          ? (results) => chartOfList(client, targets, results, action.call)
          : undefined,
    }));
  }
  RED.nodes.registerType('tb-telemetry', TbTelemetry);
}

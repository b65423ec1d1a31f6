/**
 * tb-telemetry: save, read (latest or history) or delete the time series of an entity, or of each entity of a list
 * (protocol §13). Wiring only: the settings and per-message work are src/nodes/support/telemetry,
 * value-rows and device-action, the REST calls src/platform/device-data, validation src/query/telemetry.
 */
import type { Node, NodeAPI } from 'node-red';
import { deviceActionNode, operationProblem } from '../../families/device-action';
import { ValueRows } from '../../families/value-rows';
import { setting } from '../../node-red/connection';
import { DEFAULT_HISTORY_PAGE_SIZE } from '../../platform/device-data';
import { TELEMETRY_OPERATIONS } from './logic';
import { TELEMETRY_SETTINGS, telemetryRequest, telemetryStatus, telemetryWork, type TelemetryDef } from './run';

export default function (RED: NodeAPI): void {
  function TbTelemetry(this: Node, config: TelemetryDef) {
    RED.nodes.createNode(this, config);
    const pageSize =
      setting(RED, 'tbConnectionHistoryPageSize', DEFAULT_HISTORY_PAGE_SIZE) || DEFAULT_HISTORY_PAGE_SIZE;
    const rows = new ValueRows(RED, this, config);
    deviceActionNode(RED, this, config, 'tb-telemetry', (action) => ({
      problems: [operationProblem(config, TELEMETRY_OPERATIONS), rows.problem],
      settings: TELEMETRY_SETTINGS,
      fixed: ['operation'],
      request: (msg, now, options) => telemetryRequest(config, msg, now, options, rows),
      work: (client, req) => ({ each: (e) => telemetryWork(client, e, req, action.format, pageSize, action.call) }),
      status: (req, props) => telemetryStatus(RED, req, props),
    }));
  }
  RED.nodes.registerType('tb-telemetry', TbTelemetry);
}

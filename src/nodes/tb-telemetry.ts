/**
 * tb-telemetry: save, read (latest or history) or delete the time series of an entity, or of each entity of a list
 * (protocol §13). Wiring only: the settings and per-message work are src/nodes/support/telemetry and
 * device-action, the REST calls src/platform/device-data, validation src/query/telemetry.
 */
import type { Node, NodeAPI } from 'node-red';
import type { PlatformClient } from '../platform/client';
import { DEFAULT_HISTORY_PAGE_SIZE } from '../platform/device-data';
import type { TelemetryRequest } from '../query/telemetry';
import type { Targets } from '../query/targets';
import { TELEMETRY_OPERATIONS } from '../query/telemetry';
import { lookupConnection, onClose, onInput, setupProblem } from './support/common';
import { setting } from './support/connection';
import { DeviceAction, failureStatus } from './support/device-action';
import { usableClient } from './support/rest-node';
import { operationProblem, telemetryRequest, telemetryStatus, telemetryWork, type TelemetryDef } from './support/telemetry';

export default function (RED: NodeAPI): void {
  function TbTelemetry(this: Node, config: TelemetryDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const action = new DeviceAction(RED, node, config, {});
    const bad = operationProblem(config, TELEMETRY_OPERATIONS);
    if (bad) action.addProblem(bad);
    const pageSize = setting(RED, 'tbConnectionHistoryPageSize', DEFAULT_HISTORY_PAGE_SIZE) || DEFAULT_HISTORY_PAGE_SIZE;
    if (action.problem) setupProblem(RED, node, action.problem);
    if (conn) conn.register(node);

    onInput(node, async (msg, send) => {
      const now = Date.now();
      let targets: Targets;
      let req: TelemetryRequest;
      let client: PlatformClient;
      try {
        targets = await action.targets(msg);
        req = telemetryRequest(config, msg, now);
        client = usableClient(conn);
      } catch (err) {
        // Nothing was sent: bad input, a bad setting, no connection.
        action.activity.immediate(failureStatus(RED, err));
        throw err;
      }
      await action.run(
        msg,
        send,
        targets,
        (e) => telemetryWork(client, e, req, action.format, pageSize, action.call),
        (props) => telemetryStatus(RED, req, props),
      );
    });

    onClose(node, conn, () => action.close());
  }
  RED.nodes.registerType('tb-telemetry', TbTelemetry);
}

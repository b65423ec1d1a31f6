/**
 * tb-alarm-action: acknowledge, clear, assign, unassign, comment, raise or delete an alarm (protocol §11).
 * Wiring only: the settings and the per-message request are src/nodes/support/alarm-action, the REST work is
 * PlatformClient.alarms (src/platform/alarm-actions), validation src/query/alarm-actions.
 */
import type { Node, NodeAPI } from 'node-red';
import { lookupConnection, usableClient } from '../../node-red/connection';
import { Activity, onClose, onInput } from '../../node-red/input';
import { setupProblem, status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import type { AlarmActionRequest, AlarmOperation } from '../../protocol/alarm-actions';
import { AlarmActionInputs, failureStatus, resultStatus, writeResult, type AlarmActionDef } from './run';

export default function (RED: NodeAPI): void {
  function TbAlarmAction(this: Node, config: AlarmActionDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const inputs = new AlarmActionInputs(RED, node, config);
    const activity = new Activity(RED, node);
    const onRetry = (n: number) => activity.show(status(RED, 'yellow', 'ring', 'retrying', { n }));
    if (inputs.problem) setupProblem(RED, node, inputs.problem);
    if (conn) conn.register(node);

    onInput(node, async (msg, send) => {
      let operation: AlarmOperation | undefined;
      let request: AlarmActionRequest;
      let client: PlatformClient;
      try {
        operation = inputs.operationOf(msg);
        request = await inputs.request(operation, msg);
        client = usableClient(conn);
      } catch (err) {
        // Nothing was sent: bad input, a bad setting, no connection.
        activity.immediate(failureStatus(RED, err, operation));
        throw err;
      }
      activity.start();
      try {
        const result = await client.alarms.run(request, { strict: inputs.strict, onRetry });
        writeResult(msg, result, inputs.format);
        send(msg);
        activity.end(resultStatus(RED, result));
      } catch (err) {
        activity.end(failureStatus(RED, err, operation));
        throw err;
      }
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-alarm-action', TbAlarmAction);
}

/**
 * tb-alarm-action: acknowledge, clear, assign, unassign, comment, raise or delete an alarm over ThingsBoard's REST
 * API. Wiring only: the settings and the request of each message are run.ts, the checks of what a message gives
 * logic.ts, the settings settings.ts.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection, usableClient } from '../../node-red/connection';
import { Activity, onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { setupProblem, status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import type { AlarmActionRequest, AlarmOperation } from '../../protocol/alarm-actions';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { AlarmActionInputs, alarmFailureStatus, resultStatus, writeResult } from './run';
import { TB_ALARM_ACTION } from './settings';

export default function (RED: NodeAPI): void {
  function TbAlarmAction(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = nodeSettings(node, TB_ALARM_ACTION, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, settings.values.connection);
    const inputs = new AlarmActionInputs(RED, node, settings, config as unknown as Record<string, unknown>);
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
        activity.immediate(alarmFailureStatus(RED, err, operation));
        throw err;
      }
      activity.start();
      try {
        const result = await client.alarms.run(request, { strict: inputs.strict, onRetry });
        writeResult(msg, result, inputs.format);
        send(msg);
        activity.end(resultStatus(RED, result));
      } catch (err) {
        activity.end(alarmFailureStatus(RED, err, operation));
        throw err;
      }
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-alarm-action', TbAlarmAction);
}

/**
 * tb-notify: send through ThingsBoard's notification center (targets and a template picked by name, or a subject
 * and a text written in the node), and mark the user's notifications read. Wiring only: the settings and the work
 * of each message are run.ts, the checks of what a message gives logic.ts, the settings settings.ts.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection, usableClient } from '../../node-red/connection';
import { Activity, onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { setupProblem, status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { NotifyInputs, notifyFailureStatus, writeResult, type Work } from './run';
import { TB_NOTIFY } from './settings';

export default function (RED: NodeAPI): void {
  function TbNotify(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = nodeSettings(node, TB_NOTIFY, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, settings.values.connection);
    const inputs = new NotifyInputs(RED, node, settings);
    const activity = new Activity(RED, node);
    const onRetry = (n: number) => activity.show(status(RED, 'yellow', 'ring', 'retrying', { n }));
    if (inputs.problem) setupProblem(RED, node, inputs.problem);
    if (conn) conn.register(node);

    onInput(node, async (msg, send) => {
      let work: Work;
      let client: PlatformClient;
      try {
        work = await inputs.work(msg);
        client = usableClient(conn);
      } catch (err) {
        // Nothing was sent: bad input, a bad setting, no connection.
        activity.immediate(notifyFailureStatus(RED, err));
        throw err;
      }
      activity.start();
      try {
        const r = await work(client, { onRetry });
        writeResult(msg, r.out);
        send(msg);
        activity.end(r.status);
      } catch (err) {
        activity.end(notifyFailureStatus(RED, err));
        throw err;
      }
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-notify', TbNotify);
}

/**
 * tb-wait-until: waits for a value or an alarm state of an entity (or of a list of them), with a timeout; the
 * message goes out on "met" or "timed out" with msg.waited. Wiring only: the waits and their shared live
 * subscriptions are src/nodes/support/wait-until, the condition and the output src/query/wait.
 */
import type { Node, NodeAPI } from 'node-red';
import { lookupConnection } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { waitUntilNode, type WaitUntilDef } from './waits';

export default function (RED: NodeAPI): void {
  function TbWaitUntil(this: Node, config: WaitUntilDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const engine = waitUntilNode(RED, node, config, conn);
    if (conn) conn.register(node);

    onInput(node, async (msg, send) => {
      try {
        await engine.input(msg, send);
      } catch (err) {
        engine.refused(err);
        throw err;
      }
    });

    onClose(node, conn, () => engine.close());
  }
  RED.nodes.registerType('tb-wait-until', TbWaitUntil);
}

/**
 * tb-wait-until: waits for a value or an alarm state of an entity (or of a list of them), with a timeout; the
 * message goes out on "met" or "timed out" with msg.waited. Wiring only: the waits and their live subscriptions are
 * waits.ts, the condition and the output logic.ts, the settings settings.ts.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_WAIT_UNTIL } from './settings';
import { waitUntilNode } from './waits';

export default function (RED: NodeAPI): void {
  function TbWaitUntil(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = nodeSettings(node, TB_WAIT_UNTIL, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, settings.values.connection);
    const engine = waitUntilNode(RED, node, settings, conn);
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

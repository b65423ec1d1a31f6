/**
 * tb-trigger: a condition that has held for a while, on every entity watched (one, a query's list, or those the
 * messages name), with an output for each way it turns. Wiring only.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { setupProblem, status } from '../../node-red/status';
import { MIGRATIONS } from './migrations';
import { TB_TRIGGER } from './settings';

export default function (RED: NodeAPI): void {
  function TbTrigger(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const { values, problems } = nodeSettings(node, TB_TRIGGER, MIGRATIONS, config);
    const conn = lookupConnection(RED, node, values.connection);
    if (conn) conn.register(node);
    if (problems.length) setupProblem(RED, node, problems[0]);
    else node.status(status(RED, 'grey', 'ring', 'idle'));
    onInput(node, async () => {
      if (problems.length) throw problems[0];
    });
    onClose(node, conn);
  }
  RED.nodes.registerType('tb-trigger', TbTrigger);
}

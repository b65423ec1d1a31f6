/**
 * tb-trigger: a condition that has held for a while, on every entity watched (one, a query's list, or those the
 * messages name), with an output for each way it turns. Wiring only: the entities and their subscriptions are
 * run.ts, the states and their deadlines machine.ts, the plan and the messages logic.ts, the settings settings.ts.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection } from '../../node-red/connection';
import { onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { setupProblem } from '../../node-red/status';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TriggerEngine } from './run';
import { TB_TRIGGER } from './settings';

export default function (RED: NodeAPI): void {
  function TbTrigger(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = nodeSettings(node, TB_TRIGGER, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, settings.values.connection);
    const engine = new TriggerEngine(RED, node, settings, conn);
    if (conn) conn.register(node);
    if (engine.problem) setupProblem(RED, node, engine.problem);
    // Before the shared close handler: whether the node is removed or redeployed (it then says it starts over).
    node.on('close', (removed: boolean, done: () => void) => {
      engine.close(removed);
      done();
    });
    engine.start();

    onInput(node, async (msg) => {
      try {
        await engine.input(msg);
      } catch (err) {
        engine.refused(err);
        throw err;
      }
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-trigger', TbTrigger);
}

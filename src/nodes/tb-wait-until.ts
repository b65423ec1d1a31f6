/** tb-wait-until: SKELETON (registered type only; the runtime helper replaces this file). */
import type { Node, NodeAPI, NodeDef } from 'node-red';

export default function (RED: NodeAPI): void {
  function TbWaitUntil(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
  }
  RED.nodes.registerType('tb-wait-until', TbWaitUntil);
}

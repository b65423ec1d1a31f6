/**
 * tb-rpc: send a command (RPC) to a device, or to each device of a list, and output its answer (protocol §13);
 * persistent RPCs are followed to their final state, or cancelled with msg.action = "cancel". Wiring only: the
 * per-message work is src/nodes/support/rpc and device-action, the REST calls src/platform/rpc, validation
 * src/query/rpc and src/query/targets.
 */
import type { Node, NodeAPI } from 'node-red';
import { deviceActionNode } from '../../families/device-action';
import { Gate } from '../../platform/bulk';
import { prepareAction } from './logic';
import { actionOf, Followers, followTiming, RPC_SETTINGS, rpcStatus, RpcInputs, type RpcDef } from './run';

export default function (RED: NodeAPI): void {
  function TbRpc(this: Node, config: RpcDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    deviceActionNode(RED, node, config, 'tb-rpc', (action) => {
      const inputs = new RpcInputs(RED, node, config);
      const followers = new Followers(RED, action, followTiming(RED));
      return {
        problems: [inputs.method.problem, inputs.paramsProblem],
        divert: (msg, send, client) =>
          actionOf(msg as { action?: unknown }) === 'cancel' ? followers.cancel(msg, send, client) : undefined,
        check: (msg) => prepareAction((msg as { action?: unknown }).action),
        settings: RPC_SETTINGS,
        request: (msg, now, options) => inputs.request(msg, now, options),
        work: (client, req, targets) => {
          // A bulk that follows persistent RPCs sends them all first: every request (sends, then polls) passes one gate.
          const following = req.persistent && req.waitFor === 'final' && targets.bulk;
          const gate = following ? new Gate(action.concurrency) : undefined;
          return {
            each: (e) => followers.work(client, e, req, action.call, gate, !targets.bulk),
            concurrency: following ? targets.entities.length : undefined,
          };
        },
        status: (_req, props) => rpcStatus(RED, props),
      };
    });
  }
  RED.nodes.registerType('tb-rpc', TbRpc);
}

/**
 * tb-rpc: send a command (RPC) to a device, or to each device of a list, and output its answer (protocol §13);
 * persistent RPCs are followed to their final state, or cancelled with msg.action = "cancel". Wiring only: the
 * per-message work is src/nodes/support/rpc and device-action, the REST calls src/platform/rpc, validation
 * src/query/rpc and src/query/targets.
 */
import type { Node, NodeAPI } from 'node-red';
import { Gate } from '../platform/bulk';
import type { PlatformClient } from '../platform/client';
import { prepareAction, type RpcRequest } from '../query/rpc';
import type { Targets } from '../query/targets';
import { lookupConnection, onClose, onInput, setupProblem } from './support/common';
import { DeviceAction, failureStatus } from './support/device-action';
import { usableClient } from './support/rest-node';
import { actionOf, Followers, followTiming, RPC_TARGET_RULES, rpcStatus, RpcInputs, type RpcDef } from './support/rpc';

export default function (RED: NodeAPI): void {
  function TbRpc(this: Node, config: RpcDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const action = new DeviceAction(RED, node, config, RPC_TARGET_RULES);
    const inputs = new RpcInputs(RED, node, config);
    if (inputs.method.problem) action.addProblem(inputs.method.problem);
    const followers = new Followers(RED, action, followTiming(RED));
    if (action.problem) setupProblem(RED, node, action.problem);
    if (conn) conn.register(node);

    onInput(node, async (msg, send) => {
      const m = msg as typeof msg & { action?: unknown; rpc?: unknown };
      if (actionOf(m) === 'cancel') return followers.cancel(m, send, () => usableClient(conn));
      let client: PlatformClient;
      let targets: Targets;
      let req: RpcRequest;
      try {
        prepareAction(m.action);
        targets = await action.targets(msg);
        req = await inputs.request(msg, Date.now());
        client = usableClient(conn);
      } catch (err) {
        // Nothing was sent: bad input, a bad setting, no connection.
        action.activity.immediate(failureStatus(RED, err));
        throw err;
      }
      // A bulk that follows persistent RPCs sends them all first: every request (sends, then polls) passes one gate.
      const following = req.persistent && req.waitFor === 'final' && targets.bulk;
      const gate = following ? new Gate(action.concurrency) : undefined;
      await action.run(
        msg,
        send,
        targets,
        (e) => followers.work(client, e, req, action.call, gate, !targets.bulk),
        (props) => rpcStatus(RED, props),
        following ? targets.entities.length : action.concurrency,
      );
    });

    onClose(node, conn, () => action.close());
  }
  RED.nodes.registerType('tb-rpc', TbRpc);
}

/**
 * tb-rpc: send a command (RPC) to a device, or to each device of a list, and output its answer; persistent RPCs are
 * followed to their final state, or cancelled with msg.action = "cancel". Wiring only: the per-message work is
 * run.ts, its checks logic.ts, the settings settings.ts; the rest, which the device actions share, is their family's
 * (deviceActionNode).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { deviceActionNode } from '../../families/device-action';
import { nodeSettings } from '../../node-red/settings';
import { Gate } from '../../platform/bulk';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { prepareAction } from './logic';
import { MIGRATIONS } from './migrations';
import { actionOf, Followers, followTiming, RpcInputs, rpcStatus } from './run';
import { TB_RPC } from './settings';

export default function (RED: NodeAPI): void {
  function TbRpc(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const read = nodeSettings(node, TB_RPC, MIGRATIONS, config, { RED, label });
    deviceActionNode(RED, node, read, 'tb-rpc', (action) => {
      const inputs = new RpcInputs(RED, node, read.values);
      const followers = new Followers(RED, action, followTiming(RED));
      return {
        problems: [inputs.method.problem, inputs.paramsProblem],
        divert: (msg, send, client) =>
          actionOf(msg as { action?: unknown }) === 'cancel' ? followers.cancel(msg, send, client) : undefined,
        check: (msg) => prepareAction((msg as { action?: unknown }).action),
        payloadUse: () => (read.values.paramsFrom === 'payload' ? "the command's params" : undefined),
        settings: Object.keys(fromMessage(TB_RPC)),
        request: (msg, now, options) => inputs.request(msg, now, options),
        work: (client, req, targets) => {
          // A bulk that follows persistent RPCs sends them all first: every request (sends, then polls) passes one
          // gate.
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

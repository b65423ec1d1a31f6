/**
 * tb-api: any REST call on the platform through the node's connection (its login, token refresh, retries and largest
 * answer), only on that server, under /api/. Wiring only: the call of each message is run.ts, its checks logic.ts
 * and the protocol's path rules, the settings settings.ts; the sending and the reading of the answer belong to the
 * platform client (platform/api-call.ts).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection, usableClient } from '../../node-red/connection';
import { Activity, onClose, onInput, tracked, type SendFn } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { errorStatus, setupProblem, status } from '../../node-red/status';
import type { ApiRequest } from '../../platform/api-call';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { answerProps, answerStatus, ApiInputs, failedStatus, type ApiSent } from './run';
import { TB_API } from './settings';

export default function (RED: NodeAPI): void {
  function TbApi(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const settings = nodeSettings(node, TB_API, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, settings.values.connection);
    const activity = new Activity(RED, node);
    const inputs = new ApiInputs(RED, node, settings.values);
    const problem = settings.problems[0] ?? inputs.problem;
    if (problem) setupProblem(RED, node, problem);
    if (conn) conn.register(node);

    onInput(node, async (msg, send: SendFn) => {
      let req: ApiRequest & { sent: ApiSent };
      let client;
      try {
        if (problem) throw problem;
        client = usableClient(conn);
        req = await inputs.request(msg, Date.now());
      } catch (err) {
        activity.immediate(errorStatus(RED, err));
        throw err;
      }
      const m = msg as typeof msg & Record<string, unknown>;
      await tracked(RED, activity, async () => {
        try {
          const answer = await client.api.call(req, {
            onRetry: (n) => activity.show(status(RED, 'yellow', 'ring', 'retrying', { n })),
          });
          Object.assign(m, answerProps(answer, req.sent));
          send(m);
          activity.end(answerStatus(RED, answer));
        } catch (err) {
          // At Catch: what was called, and the server's status when it answered.
          m.api = req.sent;
          const code = failedStatus(err);
          if (code !== undefined) m.statusCode = code;
          throw err;
        }
      });
    });

    onClose(node, conn);
  }
  RED.nodes.registerType('tb-api', TbApi);
}

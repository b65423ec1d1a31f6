/**
 * tb-entity: devices, assets, customers and entity views created or updated by name, read, deleted, assigned to a
 * customer and unassigned, and a device's access token, one row or a list of rows (a CSV's lines) with bounded
 * concurrency. Wiring only: the per-message work is run.ts, the settings settings.ts.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { lookupConnection, usableClient } from '../../node-red/connection';
import { Activity, onClose, onInput } from '../../node-red/input';
import { nodeSettings } from '../../node-red/settings';
import { actionFailureStatus, setupProblem, status } from '../../node-red/status';
import { BoundSettings, IgnoredWarnings } from '../../node-red/value-sources';
import type { StopSignal } from '../../platform/bulk';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { prepareRequest, runMessage, type EntityRequest } from './run';
import { TB_ENTITY } from './settings';

export default function (RED: NodeAPI): void {
  function TbEntity(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const read = nodeSettings(node, TB_ENTITY, MIGRATIONS, config, { RED, label });
    const conn = lookupConnection(RED, node, read.values.connection);
    // Profile and Customer may hold placeholders ({{msg.site}}), resolved for each message.
    const bound = new BoundSettings(RED, node, read.values, ['profile', 'customer']);
    const warnings = IgnoredWarnings.of(node);
    const problem = read.problems[0] ?? bound.problem;
    if (problem) setupProblem(RED, node, problem);
    if (conn) conn.register(node);
    const activity = new Activity(RED, node);
    const stop: StopSignal = { stopped: false };
    const call: CallOptions = { onRetry: (n) => activity.show(status(RED, 'yellow', 'ring', 'retrying', { n })) };

    onInput(node, async (msg, send) => {
      let req: EntityRequest;
      let client: PlatformClient;
      try {
        if (problem) throw problem;
        const r = bound.resolve(read.values, msg);
        const resolved = r instanceof Promise ? await r : r;
        try {
          req = prepareRequest(msg, resolved.query);
        } catch (err) {
          throw BoundSettings.explain(err, resolved);
        }
        for (const name of req.ignored) if (!bound.isBound(name)) warnings.ignored(name);
        client = usableClient(conn);
      } catch (err) {
        // Nothing was sent: bad input, a bad setting, no connection.
        activity.immediate(actionFailureStatus(RED, err));
        throw err;
      }
      await runMessage(RED, activity, stop, client, req, msg, send, read.values.concurrency as number, call);
    });

    onClose(node, conn, () => {
      stop.stopped = true;
    });
  }
  RED.nodes.registerType('tb-entity', TbEntity);
}

/**
 * tb-attributes: save, read or delete the attributes of an entity, or of each entity of a list (protocol §13).
 * Wiring only: the per-message work is src/nodes/support/attributes and device-action, the REST calls
 * src/platform/device-data, validation src/query/attributes.
 */
import type { Node, NodeAPI } from 'node-red';
import { TbConfigError } from '../errors';
import type { PlatformClient } from '../platform/client';
import { ATTRIBUTE_OPERATIONS, type AttributeRequest } from '../query/attributes';
import type { Targets } from '../query/targets';
import { attributeRequest, attributeStatus, attributeWork, SCOPE_SETTINGS, type AttributesDef } from './support/attributes';
import { lookupConnection, onClose, onInput, setupProblem } from './support/common';
import { DeviceAction, failureStatus } from './support/device-action';
import { usableClient } from './support/rest-node';
import { operationProblem } from './support/telemetry';

export default function (RED: NodeAPI): void {
  function TbAttributes(this: Node, config: AttributesDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const conn = lookupConnection(RED, node, config.connection);
    const action = new DeviceAction(RED, node, config, {});
    const bad = operationProblem(config, ATTRIBUTE_OPERATIONS);
    if (bad) action.addProblem(bad);
    if (config.scope && !(SCOPE_SETTINGS as readonly string[]).includes(config.scope)) {
      action.addProblem(new TbConfigError(`scope must be one of ${SCOPE_SETTINGS.join(', ')} (got ${JSON.stringify(config.scope)})`));
    }
    if (action.problem) setupProblem(RED, node, action.problem);
    if (conn) conn.register(node);

    onInput(node, async (msg, send) => {
      let targets: Targets;
      let req: AttributeRequest;
      let client: PlatformClient;
      try {
        targets = await action.targets(msg);
        req = attributeRequest(config, msg);
        client = usableClient(conn);
      } catch (err) {
        // Nothing was sent: bad input, a bad setting, no connection.
        action.activity.immediate(failureStatus(RED, err));
        throw err;
      }
      await action.run(
        msg,
        send,
        targets,
        (e) => attributeWork(client, e, req, action.format, action.call),
        (props) => attributeStatus(RED, req, props),
      );
    });

    onClose(node, conn, () => action.close());
  }
  RED.nodes.registerType('tb-attributes', TbAttributes);
}

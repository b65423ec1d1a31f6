/**
 * tb-attributes: save, read or delete the attributes of an entity, or of each entity of a list (protocol §13).
 * Wiring only: the per-message work is src/nodes/support/attributes, value-rows and device-action, the REST calls
 * src/platform/device-data, validation src/query/attributes.
 */
import type { Node, NodeAPI } from 'node-red';
import { TbConfigError } from '../../errors';
import { deviceActionNode, operationProblem } from '../../families/device-action';
import { ValueRows } from '../../families/value-rows';
import { ATTRIBUTE_OPERATIONS } from './logic';
import {
  ATTRIBUTE_SETTINGS,
  attributeRequest,
  attributeStatus,
  attributeWork,
  SCOPE_SETTINGS,
  type AttributesDef,
} from './run';

export default function (RED: NodeAPI): void {
  function TbAttributes(this: Node, config: AttributesDef) {
    RED.nodes.createNode(this, config);
    const badScope = config.scope && !(SCOPE_SETTINGS as readonly string[]).includes(config.scope);
    const rows = new ValueRows(RED, this, config);
    deviceActionNode(RED, this, config, 'tb-attributes', (action) => ({
      problems: [
        operationProblem(config, ATTRIBUTE_OPERATIONS),
        badScope
          ? new TbConfigError(`scope must be one of ${SCOPE_SETTINGS.join(', ')} (got ${JSON.stringify(config.scope)})`)
          : undefined,
        rows.problem,
      ],
      settings: ATTRIBUTE_SETTINGS,
      fixed: ['operation', 'scope'],
      request: (msg, _now, options) => attributeRequest(config, msg, options, rows),
      work: (client, req) => ({ each: (e) => attributeWork(client, e, req, action.format, action.call) }),
      status: (req, props) => attributeStatus(RED, req, props),
    }));
  }
  RED.nodes.registerType('tb-attributes', TbAttributes);
}

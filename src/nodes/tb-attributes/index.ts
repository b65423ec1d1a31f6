/**
 * tb-attributes: save, read or delete the attributes of an entity, or of each entity of a list. Wiring only: the
 * per-message work is run.ts, its checks logic.ts, the settings settings.ts; the rest, which the device actions
 * share, is their family's (deviceActionNode).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { deviceActionNode, savePayloadUse } from '../../families/device-action';
import { ValueRows } from '../../families/value-rows';
import { nodeSettings } from '../../node-red/settings';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { attributeRequest, attributeStatus, attributeWork } from './run';
import { TB_ATTRIBUTES } from './settings';

export default function (RED: NodeAPI): void {
  function TbAttributes(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const read = nodeSettings(this, TB_ATTRIBUTES, MIGRATIONS, config, { RED, label });
    const s = read.values;
    const rows = new ValueRows(RED, this, s);
    deviceActionNode(RED, this, read, 'tb-attributes', (action) => ({
      problems: [rows.problem],
      settings: Object.keys(fromMessage(TB_ATTRIBUTES)),
      fixed: ['operation', 'scope'],
      payloadUse: (msg) => savePayloadUse(s, msg),
      request: (msg, _now, options) => attributeRequest(s, msg, options, rows),
      work: (client, req) => ({ each: (e) => attributeWork(client, e, req, s.format, action.call) }),
      status: (req, props) => attributeStatus(RED, req, props),
    }));
  }
  RED.nodes.registerType('tb-attributes', TbAttributes);
}

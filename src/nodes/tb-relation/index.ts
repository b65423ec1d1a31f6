/**
 * tb-relation: create or delete a relation between two entities, or find the entities related to one, for an entity
 * or each entity of a list. Wiring only: the per-message work is run.ts, its checks logic.ts, the settings
 * settings.ts; the rest, which the device actions share, is their family's (deviceActionNode).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { deviceActionNode } from '../../families/device-action';
import { nodeSettings } from '../../node-red/settings';
import { TypedValue } from '../../node-red/typed-value';
import { ACTION_TARGETS, policyRules, prepareTarget, type TargetRules } from '../../protocol/targets';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { relatedOf, relationRequest, relationStatus, relationWork } from './run';
import { TB_RELATION } from './settings';

export default function (RED: NodeAPI): void {
  function TbRelation(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const read = nodeSettings(this, TB_RELATION, MIGRATIONS, config, { RED, label });
    const s = read.values;
    const policy = ACTION_TARGETS['tb-relation'];
    let rules: TargetRules;
    try {
      rules = policyRules(policy, s.relatedEntityType);
    } catch {
      rules = { ...policy, defaultType: 'DEVICE' };
    }
    // The other end: msg.related by default, a fixed entity (picked by name), a message property, JSONata.
    const related = new TypedValue(RED, this, {
      name: 'related',
      value: s.related,
      type: s.relatedType,
      types: ['auto', 'json', 'msg', 'jsonata'],
      auto: (msg) => ({ value: (msg as { related?: unknown }).related, field: 'msg.related' }),
      check: (v, field) => prepareTarget(v, field, rules),
      sameName: 'related',
    });
    deviceActionNode(RED, this, read, 'tb-relation', (action) => ({
      problems: [related.problem],
      settings: Object.keys(fromMessage(TB_RELATION)),
      fixed: ['operation'],
      request: (msg, _now, options) => relationRequest(s, msg, options, () => relatedOf(related, msg, rules)),
      work: (client, req, targets) => ({ each: (e) => relationWork(client, e, req, action.call, !targets.bulk) }),
      status: (req, props) => relationStatus(RED, req, props),
    }));
  }
  RED.nodes.registerType('tb-relation', TbRelation);
}

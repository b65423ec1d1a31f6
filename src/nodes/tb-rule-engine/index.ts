/**
 * tb-rule-engine: pushes a message into ThingsBoard's rule chains, as the connection's user or as an entity (or each
 * entity of a list), and outputs the answer of the "rest call reply" node that handles it. Wiring only: the
 * per-message work is run.ts, its checks logic.ts, the settings settings.ts; the rest, which the device actions share,
 * is their family's (deviceActionNode).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { deviceActionNode } from '../../families/device-action';
import { nodeSettings } from '../../node-red/settings';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { RuleInputs, ruleStatus, sendOne, type RuleRequest } from './run';
import { TB_RULE_ENGINE } from './settings';

export default function (RED: NodeAPI): void {
  function TbRuleEngine(this: Node, config: NodeDef) {
    RED.nodes.createNode(this, config);
    const node = this;
    const read = nodeSettings(node, TB_RULE_ENGINE, MIGRATIONS, config, { RED, label });
    const inputs = new RuleInputs(node, read.values);
    // As the connection's user the entity settings are not read: a leftover in them is no problem of the node.
    if (inputs.asUser) Object.assign(read.values, { target: '', targetType: 'auto' });
    deviceActionNode<RuleRequest>(RED, node, read, 'tb-rule-engine', (action) => ({
      problems: [inputs.bodyProblem],
      self: () => (inputs.asUser ? (client, req) => sendOne(client, req, undefined, action.call) : undefined),
      payloadUse: () => (read.values.bodyFrom === 'json' ? undefined : "the message's data"),
      settings: Object.keys(fromMessage(TB_RULE_ENGINE)),
      request: (msg, _now, options) => inputs.request(msg, options),
      work: (client, req) => ({ each: (e) => sendOne(client, req, e, action.call) }),
      status: () => ruleStatus(RED),
    }));
  }
  RED.nodes.registerType('tb-rule-engine', TbRuleEngine);
}

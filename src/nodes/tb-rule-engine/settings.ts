/** tb-rule-engine's settings, declared once: the dialog, the runtime and the reference page read them. */
import { choice, connection, declareNode, duration, formatted, text, type Values } from '../../settings/declare';
import { concurrencySetting } from '../../settings/options';
import { targetEntityTypeSetting, targetSettings } from '../../settings/target';

/** Who the message comes from: the connection's user, or an entity (the `target` setting). */
export const ORIGINATORS = ['user', 'entity'] as const;
export type Originator = (typeof ORIGINATORS)[number];

/** Where the message's data comes from: msg.payload, or fixed JSON (`body`). */
export const BODY_FROM = ['payload', 'json'] as const;
export type BodyFrom = (typeof BODY_FROM)[number];

export const TB_RULE_ENGINE = declareNode({
  type: 'tb-rule-engine',
  inputs: 1,
  outputs: 1,
  version: 1,
  settings: {
    name: text(),
    connection: connection(),
    // The connection's user needs nothing more: the tenant's root rule chain handles its messages.
    originator: choice(ORIGINATORS, 'user'),
    ...targetSettings(),
    targetEntityType: targetEntityTypeSetting(),
    bodyFrom: choice(BODY_FROM, 'payload'),
    body: formatted('json', ''),
    // Left empty: msg.queue, else the queue of the originator's profile (Main).
    queue: text('', { fromMessage: 'msg.queue' }),
    // Left empty: msg.timeout, else the server's own wait (10 s unless its administrator changed it).
    timeout: duration('', { min: 1, optional: true }, { fromMessage: 'msg.timeout' }),
    concurrency: concurrencySetting(),
  },
});

export type RuleEngineSettings = Values<typeof TB_RULE_ENGINE.settings>;

/** tb-attributes' settings, declared once: the dialog, the runtime and the reference page read them. */
import { SCOPE_CHOICES } from '../../protocol/attributes';
import { choice, connection, declareNode, formatted, text, type Values } from '../../settings/declare';
import { concurrencySetting, formatSetting } from '../../settings/options';
import { targetEntityTypeSetting, targetSettings } from '../../settings/target';
import { valueRowsSettings } from '../../settings/value-rows';

export const ATTRIBUTE_OPERATIONS = ['save', 'read', 'delete'] as const;
export type AttributeOperation = (typeof ATTRIBUTE_OPERATIONS)[number];

/** The scope setting: a scope, any (a read of every scope), or msg (msg.scope). */
export const SCOPE_SETTINGS = [...SCOPE_CHOICES, 'msg'] as const;

export const TB_ATTRIBUTES = declareNode({
  type: 'tb-attributes',
  inputs: 1,
  outputs: 1,
  version: 2,
  settings: {
    name: text(),
    connection: connection(),
    // One of the operations, or msg: msg.operation.
    operation: choice([...ATTRIBUTE_OPERATIONS, 'msg'], 'save'),
    scope: choice(SCOPE_SETTINGS, 'SERVER_SCOPE'),
    ...targetSettings(),
    targetEntityType: targetEntityTypeSetting(),
    keys: formatted('list', '', { fromMessage: 'msg.keys' }),
    ...valueRowsSettings(),
    format: formatSetting(),
    concurrency: concurrencySetting(),
  },
});

export type AttributesSettings = Values<typeof TB_ATTRIBUTES.settings>;

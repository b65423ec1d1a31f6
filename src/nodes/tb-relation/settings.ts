/** tb-relation's settings, declared once: the dialog, the runtime and the reference page read them. */
import { RELATION_DIRECTIONS, RELATION_TYPE_GROUPS } from '../../protocol/relations';
import { RELATION_ENTITY_TYPES } from '../../protocol/targets';
import { choice, connection, declareNode, flag, formatted, text, whole, type Values } from '../../settings/declare';
import { concurrencySetting } from '../../settings/options';
import { targetEntityTypeSetting, TARGET_SOURCES, targetSettings } from '../../settings/target';

export const RELATION_OPERATIONS = ['create', 'delete', 'find'] as const;
export type RelationOperation = (typeof RELATION_OPERATIONS)[number];

export const TB_RELATION = declareNode({
  type: 'tb-relation',
  inputs: 1,
  outputs: 1,
  version: 1,
  settings: {
    name: text(),
    connection: connection(),
    // One of the operations, or msg: msg.operation.
    operation: choice([...RELATION_OPERATIONS, 'msg'], 'create'),
    // The entity (or list) acted on: msg.entity by default, like the device actions.
    ...targetSettings(),
    targetEntityType: targetEntityTypeSetting(RELATION_ENTITY_TYPES),
    // FROM: the relation goes from the entity to the related one (find: its children); TO: the other way.
    direction: choice(RELATION_DIRECTIONS, 'TO'),
    // The other end of a create or delete: msg.related by default, or an entity picked by name.
    related: text(),
    relatedType: choice(TARGET_SOURCES, 'auto'),
    relatedEntityType: targetEntityTypeSetting(RELATION_ENTITY_TYPES),
    relationType: text('Contains', { fromMessage: 'msg.relationType' }),
    typeGroup: choice(RELATION_TYPE_GROUPS, 'COMMON'),
    // find: how deep (0 = every level), only the last level, the related entities' types
    maxLevel: whole(1, { min: 0 }),
    lastLevelOnly: flag(false),
    entityTypes: formatted('list', '', { fromMessage: 'msg.entityTypes' }),
    concurrency: concurrencySetting(),
  },
});

export type RelationSettings = Values<typeof TB_RELATION.settings>;

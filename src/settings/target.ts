/**
 * The entity setting of the nodes that act on or watch entities (telemetry, attributes, rpc, wait until), declared
 * once for all of them: `target` (the entity, when it is not the message's), `targetType` (where it comes from) and
 * `targetEntityType` (the type of an entity given as a bare id).
 */
import { TARGET_ENTITY_TYPES } from '../protocol/targets';
import { choice, text } from './declare';

/** Where the entity comes from: the message (msg.entity, else msg.topic), fixed JSON, a message property, JSONata. */
export const TARGET_SOURCES = ['auto', 'json', 'msg', 'jsonata'] as const;

/** The entity and its source. */
export function targetSettings() {
  return {
    target: text(),
    targetType: choice(TARGET_SOURCES, 'auto'),
  };
}

/** The type of an entity given as a bare id (a UUID), among the types the node takes. */
export function targetEntityTypeSetting(types: readonly string[] = TARGET_ENTITY_TYPES) {
  return choice(types, 'DEVICE');
}

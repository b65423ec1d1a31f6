/**
 * tb-relation's pure logic: the relation of one entity (which end it is), the request of a message (its type, type
 * group, and for a find the levels and the related entities' types), checked before anything is sent. No I/O, no
 * Node-RED.
 */
import { TbInputError } from '../../errors';
import {
  RELATION_DIRECTIONS,
  RELATION_TYPE_GROUPS,
  type RelationDirection,
  type RelationKey,
  type RelationsQuery,
  type RelationTypeGroup,
} from '../../protocol/relations';
import { ACTION_TARGETS, policyRules, prepareTarget, RELATION_ENTITY_TYPES } from '../../protocol/targets';
import type { EntityId } from '../../protocol/types';
import { blankSetting, enumOption, intOption, keysOption, type OptionReader } from '../../settings/options';
import type { RelationOperation } from './settings';

export interface RelationRequest {
  operation: RelationOperation;
  direction: RelationDirection;
  /** The other end (create, delete). */
  related?: EntityId;
  /** The relation type; empty for a find means any. */
  relationType: string;
  typeGroup: RelationTypeGroup;
  maxLevel: number;
  lastLevelOnly: boolean;
  entityTypes: string[];
}

function fail(field: string, message: string): never {
  throw new TbInputError(field, message);
}

/** The relation type of a create or delete: required, at most 255 characters (the server's limit). */
export function prepareRelationType(v: unknown, field: string, required: boolean): string {
  if (v === undefined || v === null) {
    if (required) fail(field, 'Give a relation type (e.g. Contains, Manages): relationType is empty');
    return '';
  }
  if (typeof v !== 'string') fail(field, `${field} must be text, e.g. Contains`);
  const t = v.trim();
  if (t === '' && required) fail(field, 'Give a relation type (e.g. Contains, Manages): relationType is empty');
  if (t.length > 255) fail(field, `${field} is too long: ThingsBoard takes at most 255 characters`);
  if (t.includes('\u0000')) fail(field, `${field} must not hold a NUL character`);
  return t;
}

/** The related entities' types of a find (a list of entity types; empty = any). */
export function prepareEntityTypes(s: ReturnType<OptionReader['get']>): string[] {
  const list = keysOption(s);
  for (const t of list)
    if (!(RELATION_ENTITY_TYPES as readonly string[]).includes(t))
      fail(
        s?.field ?? 'entityTypes',
        `${s?.field ?? 'entityTypes'}: ${t} is not one of ${RELATION_ENTITY_TYPES.join(', ')}`,
      );
  return list;
}

/** The request of one message; `related` is the other end, read by the caller for a create or delete. */
export function prepareRelationRequest(
  operation: RelationOperation,
  config: { direction: unknown; typeGroup: unknown; maxLevel: unknown; lastLevelOnly: unknown },
  r: OptionReader,
  related: EntityId | undefined,
): RelationRequest {
  const direction = enumOption(
    blankSetting(config.direction) ? undefined : { value: config.direction, field: 'direction' },
    RELATION_DIRECTIONS,
    'TO',
  );
  const typeGroup = enumOption(
    blankSetting(config.typeGroup) ? undefined : { value: config.typeGroup, field: 'typeGroup' },
    RELATION_TYPE_GROUPS,
    'COMMON',
  );
  const t = r.get('relationType');
  const find = operation === 'find';
  const relationType = prepareRelationType(t?.value, t?.field ?? 'relationType', !find);
  if (!find && !related) fail('related', 'Pick the related entity, or send it in msg.related');
  const maxLevel = find
    ? (intOption(
        blankSetting(config.maxLevel) ? undefined : { value: config.maxLevel, field: 'maxLevel' },
        1,
        0,
        1000,
      ) as number)
    : 1;
  return {
    operation,
    direction,
    related,
    relationType,
    typeGroup,
    maxLevel,
    lastLevelOnly: config.lastLevelOnly === true || config.lastLevelOnly === 'true',
    entityTypes: find ? prepareEntityTypes(r.get('entityTypes')) : [],
  };
}

/** The relation of one entity: the entity is the `from` end (FROM) or the `to` end (TO). */
export function relationKey(e: EntityId, req: RelationRequest): RelationKey {
  const other = req.related as EntityId;
  const [from, to] = req.direction === 'FROM' ? [e, other] : [other, e];
  return { from, to, type: req.relationType, typeGroup: req.typeGroup };
}

/** The relations query of one entity. */
export function relationsQuery(e: EntityId, req: RelationRequest): RelationsQuery {
  return {
    root: e,
    direction: req.direction,
    typeGroup: req.typeGroup,
    maxLevel: req.maxLevel,
    lastLevelOnly: req.lastLevelOnly,
    relationType: req.relationType,
    entityTypes: req.entityTypes,
  };
}

/**
 * The dialog's check of the node's settings (registered by its dialog, run by the device-target part): the runtime's
 * own checks over the settings as the dialog holds them, with stand-ins for what a message may still bring.
 */
export function checkRelationSettings(s: Record<string, unknown>): void {
  if (s.relatedType === 'json' && !blankSetting(s.related)) {
    let v: unknown;
    try {
      v = JSON.parse(String(s.related));
    } catch {
      fail('related', 'related: write the entity as JSON, e.g. { "entityType": "ASSET", "id": "<uuid>" }');
    }
    prepareTarget(v, 'related', policyRules(ACTION_TARGETS['tb-relation'], s.relatedEntityType ?? 'DEVICE'));
  }
  const op = blankSetting(s.operation) ? 'create' : s.operation;
  if (!blankSetting(s.relationType)) prepareRelationType(s.relationType, 'relationType', false);
  if (op === 'find' && !blankSetting(s.entityTypes) && !String(s.entityTypes).includes('{{'))
    prepareEntityTypes({ value: s.entityTypes, field: 'entityTypes' });
  if (op === 'find' && !blankSetting(s.maxLevel)) intOption({ value: s.maxLevel, field: 'maxLevel' }, 1, 0, 1000);
}

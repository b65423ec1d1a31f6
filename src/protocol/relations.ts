/**
 * Relations on the wire (`EntityRelationController`): the relation's key as query parameters, the body of a save,
 * the relations query, and the related entities read from its answer. Pure: no I/O, no Node-RED.
 *
 * A relation's key is (from, to, typeGroup, type). The query walks breadth-first from its root, every level up to
 * `maxLevel` (≤ 0: all), its filters OR-ed (relation type, the far end's entity type); `negate` has no effect there,
 * and a body without `filters` is a 404, so an empty list is always sent. A missing `direction` would walk TO.
 */
import { TbError } from '../errors';
import type { EntityId } from './types';
import { isObject } from './validate';

/** `RelationTypeGroup`. */
export const RELATION_TYPE_GROUPS = [
  'COMMON',
  'DASHBOARD',
  'RULE_CHAIN',
  'RULE_NODE',
  'EDGE',
  'EDGE_AUTO_ASSIGN_RULE_CHAIN',
] as const;
export type RelationTypeGroup = (typeof RELATION_TYPE_GROUPS)[number];

export const RELATION_DIRECTIONS = ['FROM', 'TO'] as const;
export type RelationDirection = (typeof RELATION_DIRECTIONS)[number];

export interface RelationKey {
  from: EntityId;
  to: EntityId;
  type: string;
  typeGroup: RelationTypeGroup;
}

export interface RelationsQuery {
  root: EntityId;
  direction: RelationDirection;
  typeGroup: RelationTypeGroup;
  /** 1 = direct relations; 0 = every level */
  maxLevel: number;
  lastLevelOnly: boolean;
  /** empty = any type */
  relationType: string;
  /** the far end's types; empty = any */
  entityTypes: string[];
}

/** A related entity as the node gives it: the flat form of the query nodes' rows, plus how it was reached. */
export interface RelatedEntity {
  id: string;
  entityType: string;
  name: string;
  relationType: string;
}

/** The query parameters of `GET` / `DELETE /api/relation`. */
export function relationParams(k: RelationKey): Record<string, string> {
  return {
    fromId: k.from.id,
    fromType: k.from.entityType,
    relationType: k.type,
    relationTypeGroup: k.typeGroup,
    toId: k.to.id,
    toType: k.to.entityType,
  };
}

/** The body of `POST /api/relation`. */
export function relationBody(k: RelationKey): Record<string, unknown> {
  return {
    from: { entityType: k.from.entityType, id: k.from.id },
    to: { entityType: k.to.entityType, id: k.to.id },
    type: k.type,
    typeGroup: k.typeGroup,
  };
}

/** The body of `POST /api/relations/info`. */
export function relationsQueryBody(q: RelationsQuery): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (q.relationType !== '') filter.relationType = q.relationType;
  if (q.entityTypes.length) filter.entityTypes = [...q.entityTypes];
  return {
    parameters: {
      rootId: q.root.id,
      rootType: q.root.entityType,
      direction: q.direction,
      relationTypeGroup: q.typeGroup,
      maxLevel: q.maxLevel,
      fetchLastLevelOnly: q.lastLevelOnly,
    },
    filters: Object.keys(filter).length ? [filter] : [],
  };
}

/**
 * The related entities of a `POST /api/relations/info` answer: the far end of each relation (`to` for FROM, `from`
 * for TO) with its name, each entity once (the first relation that reached it), in the server's order.
 */
export function relatedEntities(answer: unknown, direction: RelationDirection): RelatedEntity[] {
  if (!Array.isArray(answer))
    throw new TbError('TB_BAD_RESPONSE', 'ThingsBoard answered the relations query with something not a list');
  const out: RelatedEntity[] = [];
  const seen = new Set<string>();
  for (const r of answer) {
    if (!isObject(r)) continue;
    const far = direction === 'FROM' ? r.to : r.from;
    if (!isObject(far) || typeof far.id !== 'string' || typeof far.entityType !== 'string') continue;
    if (seen.has(far.id)) continue;
    seen.add(far.id);
    const name = direction === 'FROM' ? r.toName : r.fromName;
    out.push({
      id: far.id,
      entityType: far.entityType,
      name: typeof name === 'string' ? name : '',
      relationType: typeof r.type === 'string' ? r.type : '',
    });
  }
  return out;
}

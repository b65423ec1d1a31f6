/**
 * Entity ids: a plain `{entityType, id}`, one that may also be an alias of the caller (CURRENT_USER, CURRENT_TENANT,
 * CURRENT_CUSTOMER, CURRENT_USER_OWNER), and one of a fixed type that may be given as a bare UUID string.
 */

import type { ALIAS_ENTITY_TYPES, AliasEntityId, EntityId, EntityType } from '../types';
import {
  ALIAS_TYPE,
  ENTITY_OR_ALIAS_TYPE_TEXT,
  ENTITY_TYPE,
  arr,
  describe,
  fail,
  got,
  obj,
  oneOf,
  uuid,
} from './primitives';

export function entityType(v: unknown, path: string): EntityType {
  return oneOf(v, ENTITY_TYPE, path, ENTITY_TYPE.text);
}

export function entityTypeArray(v: unknown, path: string): EntityType[] {
  const a = arr(v, path, 'an array of entity types');
  const out: EntityType[] = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = entityType(a[i], `${path}[${i}]`);
  return out;
}

/** Validates a plain entity id `{entityType, id}` (e.g. an ALARM_STATUS originator) and returns a clean copy. */
export function prepareEntityId(v: unknown, path = 'entityId'): EntityId {
  const o = obj(v, path, 'an entity id {"entityType": "DEVICE", "id": "<uuid>"}');
  return { entityType: entityType(o.entityType, `${path}.entityType`), id: uuid(o.id, `${path}.id`) };
}

/** An entity id, or one of the aliases CURRENT_USER, CURRENT_TENANT, CURRENT_CUSTOMER, CURRENT_USER_OWNER. */
export function aliasEntityId(v: unknown, path: string): AliasEntityId {
  const o = obj(v, path, 'an entity id {"entityType": "DEVICE", "id": "<uuid>"} or {"entityType": "CURRENT_USER"}');
  const et = o.entityType;
  if (typeof et === 'string') {
    if (ALIAS_TYPE.set.has(et)) {
      const aliasType = et as (typeof ALIAS_ENTITY_TYPES)[number];
      return o.id == null ? { entityType: aliasType } : { entityType: aliasType, id: uuid(o.id, `${path}.id`) };
    }
    if (ENTITY_TYPE.set.has(et)) return { entityType: et, id: uuid(o.id, `${path}.id`) };
    const lc = et.toLowerCase();
    const hint = ALIAS_TYPE.lower.get(lc) ?? ENTITY_TYPE.lower.get(lc);
    if (hint !== undefined) {
      fail(
        `${path}.entityType`,
        `${path}.entityType must be ${ENTITY_OR_ALIAS_TYPE_TEXT} (got ${describe(et)}; did you mean "${hint}"?)`,
      );
    }
  }
  return fail(`${path}.entityType`, `${path}.entityType must be ${ENTITY_OR_ALIAS_TYPE_TEXT} ${got(et)}`);
}

/** `{entityType: <expected>, id}`; a bare UUID string is accepted, and a missing entityType is filled in. */
export function typedId<T extends string>(v: unknown, path: string, expected: T): EntityId<T> {
  if (typeof v === 'string') return { entityType: expected, id: uuid(v, path) };
  const o = obj(v, path, `a ${expected} id {"entityType": "${expected}", "id": "<uuid>"} or a UUID string`);
  if (o.entityType != null && o.entityType !== expected) {
    fail(`${path}.entityType`, `${path}.entityType must be ${expected} ${got(o.entityType)}`);
  }
  return { entityType: expected, id: uuid(o.id, `${path}.id`) };
}

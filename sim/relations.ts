/**
 * Relations (`C/EntityRelationController.java`): save (`POST /api/v2/relation` answers the saved relation, the hidden
 * `POST /api/relation` answers 200 with no body), delete (`DELETE /api/v2/relation` answers the deleted relation, a
 * missing one is 404 "Requested item wasn't found!"), get one, the lists (`GET /api/relations[/info]`), delete all of
 * an entity's COMMON relations, and the relations query (`POST /api/relations[/info]`).
 *
 * The relation key is (from, to, typeGroup, type); a save is an upsert with a new version and no optimistic locking.
 * The query walks breadth-first from `rootId`/`rootType`, expanding each entity once, keeps relations of every level
 * up to `maxLevel` (≤ 0: unlimited), ORs its filters (relation type, far-end entity types; `negate` ignored), and a
 * body without `parameters` or `filters` is 404. A `direction` other than FROM walks TO. An unknown
 * `relationTypeGroup` query parameter is COMMON. Every list drops the relations whose ends the caller cannot read.
 */
import type { Dataset, SimEntity, SimRelation } from './dataset';
import { ApiError, badRequest, forbidden, jsonParseError, notFound } from './errors';
import { ENTITY_TYPE_NAMES, type Caller, type EntityId } from './types';

/** `RelationTypeGroup` (`data/relation/RelationTypeGroup.java`). */
export const RELATION_TYPE_GROUPS = [
  'COMMON',
  'DASHBOARD',
  'RULE_CHAIN',
  'RULE_NODE',
  'EDGE',
  'EDGE_AUTO_ASSIGN_RULE_CHAIN',
] as const;

export interface RelationsContext {
  data: Dataset;
  /** the authority of a user entity, for the read check of USER ends */
  authorityOf(userId: string): string | null;
  versionAtLeast(v: string): boolean;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** `EntityType#getNormalName`. */
function normalName(entityType: string): string {
  if (entityType === 'ENTITY_VIEW') return 'Entity View';
  const s = entityType.replace(/^TB_/, '').toLowerCase().replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** `BaseController#checkParameter`. */
function param(q: URLSearchParams, name: string): string {
  const v = q.get(name);
  if (v === null || v.trim() === '') throw badRequest(`Parameter '${name}' can't be empty!`);
  return v;
}

/** `parseRelationTypeGroup`: absent, blank or unknown is COMMON. */
function groupParam(q: URLSearchParams): string {
  const v = (q.get('relationTypeGroup') ?? '').trim();
  return (RELATION_TYPE_GROUPS as readonly string[]).includes(v) ? v : 'COMMON';
}

export class RelationsApi {
  constructor(private readonly ctx: RelationsContext) {}

  private get ds(): Dataset {
    return this.ctx.data;
  }

  /** `EntityIdFactory.getByTypeAndId`: a bad type or id is 400/31. */
  private entityId(type: string, id: string): EntityId {
    if (!(ENTITY_TYPE_NAMES as readonly string[]).includes(type))
      throw badRequest(`No enum constant org.thingsboard.server.common.data.EntityType.${type}`);
    if (!UUID.test(id)) throw badRequest(`Invalid UUID string: ${id}`);
    return { entityType: type, id: id.toLowerCase() };
  }

  /** `checkEntityId`: 404 "<Type> with id [..] is not found", then the permission (403/20). */
  private check(caller: Caller, ref: EntityId, write: boolean): SimEntity {
    const e = this.ds.get(ref.id);
    if (!e || e.entityType !== ref.entityType)
      throw new ApiError(404, 32, `${normalName(ref.entityType)} with id [${ref.id}] is not found`);
    if (!(write ? this.canWrite(caller, e) : this.canRead(caller, e))) throw forbidden();
    return e;
  }

  private canRead(caller: Caller, e: SimEntity): boolean {
    const sameTenant = e.tenantId === caller.tenantId;
    if (caller.authority === 'TENANT_ADMIN') {
      if (e.entityType === 'TENANT') return e.id === caller.tenantId;
      if (e.entityType === 'USER') return sameTenant && this.ctx.authorityOf(e.id) !== 'SYS_ADMIN';
      return sameTenant;
    }
    if (caller.authority !== 'CUSTOMER_USER') return false;
    switch (e.entityType) {
      case 'DEVICE':
      case 'ASSET':
      case 'ENTITY_VIEW':
      case 'EDGE':
        return sameTenant && e.customerId !== null && e.customerId === caller.customerId;
      case 'CUSTOMER':
        return e.id === caller.customerId;
      case 'USER':
        return e.id === caller.userId;
      case 'DASHBOARD':
        return sameTenant && (e.assignedCustomerIds ?? []).includes(caller.customerId ?? '');
      default:
        return false;
    }
  }

  /** WRITE: a tenant admin on the tenant's entities; a customer user on its devices, assets, views, edges, itself. */
  private canWrite(caller: Caller, e: SimEntity): boolean {
    if (caller.authority === 'TENANT_ADMIN') return this.canRead(caller, e);
    if (caller.authority !== 'CUSTOMER_USER') return false;
    if (e.entityType === 'CUSTOMER' || e.entityType === 'DASHBOARD') return false;
    return this.canRead(caller, e);
  }

  /** `checkCanCreateRelation`: a tenant admin may use its own tenant as an end without a check. */
  private checkEnd(caller: Caller, ref: EntityId): void {
    if (caller.authority === 'TENANT_ADMIN' && ref.entityType === 'TENANT' && ref.id === caller.tenantId) return;
    this.check(caller, ref, true);
  }

  json(r: SimRelation): Record<string, unknown> {
    const out: Record<string, unknown> = {
      from: { ...r.from },
      to: { ...r.to },
      type: r.type,
      typeGroup: r.typeGroup,
      additionalInfo: r.additionalInfo,
    };
    if (this.ctx.versionAtLeast('3.8')) out.version = r.version;
    return out;
  }

  private infoJson(r: SimRelation): Record<string, unknown> {
    const name = (id: string): string => this.ds.get(id)?.name || 'N/A';
    return { ...this.json(r), fromName: name(r.from.id), toName: name(r.to.id) };
  }

  private readable(caller: Caller, list: readonly SimRelation[]): SimRelation[] {
    const ok = (ref: EntityId): boolean => {
      const e = this.ds.get(ref.id);
      return e !== undefined && this.canRead(caller, e);
    };
    return list.filter((r) => ok(r.from) && ok(r.to));
  }

  private find(from: string, to: string, type: string, group: string): SimRelation | undefined {
    return this.ds.relationsFrom(from).find((r) => r.to.id === to && r.type === type && r.typeGroup === group);
  }

  /** `POST /api/v2/relation` (the saved relation) and `POST /api/relation` (undefined: 200 with no body). */
  save(caller: Caller, body: unknown, v2: boolean): unknown {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw jsonParseError('Cannot deserialize value of type `EntityRelation`');
    const o = body as Record<string, unknown>;
    const end = (v: unknown, name: string): EntityId | null => {
      if (v === null || v === undefined) return null;
      const x = v as Record<string, unknown>;
      if (typeof v !== 'object' || typeof x.entityType !== 'string' || typeof x.id !== 'string')
        throw jsonParseError(`Cannot deserialize EntityId of "${name}"`);
      if (!(ENTITY_TYPE_NAMES as readonly string[]).includes(x.entityType))
        throw jsonParseError(`Cannot deserialize value of type \`EntityType\` from String "${x.entityType}"`);
      if (!UUID.test(x.id)) throw jsonParseError(`Invalid UUID string: ${x.id}`);
      return { entityType: x.entityType, id: x.id.toLowerCase() };
    };
    const from = end(o.from, 'from');
    const to = end(o.to, 'to');
    let group = 'COMMON';
    if (o.typeGroup !== undefined && o.typeGroup !== null) {
      if (typeof o.typeGroup !== 'string' || !(RELATION_TYPE_GROUPS as readonly string[]).includes(o.typeGroup))
        throw jsonParseError(`Cannot deserialize value of type \`RelationTypeGroup\` from String "${o.typeGroup}"`);
      group = o.typeGroup;
    }
    const type = typeof o.type === 'string' ? o.type : '';
    const problems: string[] = [];
    if (from === null) problems.push('from must not be null');
    if (to === null) problems.push('to must not be null');
    if (type.trim() === '') problems.push('type must not be blank');
    else if (type.length > 255) problems.push('type length must be equal or less than 255');
    if (problems.length) throw badRequest(`Validation error: ${problems.sort().join(', ')}`);
    this.checkEnd(caller, from!);
    this.checkEnd(caller, to!);
    const rel = this.ds.addRelation(from!, to!, type, group, o.additionalInfo ?? null);
    return v2 ? this.json(rel) : undefined;
  }

  /** `DELETE /api/v2/relation` (the deleted relation) and `DELETE /api/relation` (undefined). */
  remove(caller: Caller, q: URLSearchParams, v2: boolean): unknown {
    const from = this.entityId(param(q, 'fromType'), param(q, 'fromId'));
    const type = param(q, 'relationType');
    const to = this.entityId(param(q, 'toType'), param(q, 'toId'));
    const group = groupParam(q);
    this.checkEnd(caller, from);
    this.checkEnd(caller, to);
    const rel = this.find(from.id, to.id, type, group);
    if (!rel) throw notFound();
    const out = this.json(rel);
    this.ds.removeRelation(from, to, type, group);
    return v2 ? out : undefined;
  }

  /** `DELETE /api/relations?entityId&entityType`: every COMMON relation of the entity, both ways. */
  removeAll(caller: Caller, q: URLSearchParams): undefined {
    const id = this.entityId(param(q, 'entityType'), param(q, 'entityId'));
    this.checkEnd(caller, id);
    for (const r of [...this.ds.relationsFrom(id.id), ...this.ds.relationsTo(id.id)])
      if (r.typeGroup === 'COMMON') this.ds.removeRelation(r.from, r.to, r.type, r.typeGroup);
    return undefined;
  }

  /** `GET /api/relation`: the relation, or 404 "Requested item wasn't found!". */
  get(caller: Caller, q: URLSearchParams): unknown {
    const from = this.entityId(param(q, 'fromType'), param(q, 'fromId'));
    const type = param(q, 'relationType');
    const to = this.entityId(param(q, 'toType'), param(q, 'toId'));
    this.check(caller, from, false);
    this.check(caller, to, false);
    const rel = this.find(from.id, to.id, type, groupParam(q));
    if (!rel) throw notFound();
    return this.json(rel);
  }

  /** `GET /api/relations[/info]?fromId&fromType|toId&toType[&relationType][&relationTypeGroup]`. */
  list(caller: Caller, q: URLSearchParams, info: boolean): unknown {
    const fromSide = q.has('fromId') || q.has('fromType');
    const root = fromSide
      ? this.entityId(param(q, 'fromType'), param(q, 'fromId'))
      : this.entityId(param(q, 'toType'), param(q, 'toId'));
    this.check(caller, root, false);
    const group = groupParam(q);
    const relType = info ? null : q.get('relationType');
    const all = fromSide ? this.ds.relationsFrom(root.id) : this.ds.relationsTo(root.id);
    const picked = all.filter((r) => r.typeGroup === group && (relType === null || r.type === relType));
    return this.readable(caller, picked).map((r) => {
      if (!info) return this.json(r);
      const j = this.infoJson(r);
      delete j[fromSide ? 'fromName' : 'toName'];
      return j;
    });
  }

  /** `POST /api/relations[/info]`: the relations query. */
  query(caller: Caller, body: unknown, info: boolean): unknown {
    const o = (body ?? {}) as Record<string, unknown>;
    const p = o.parameters as Record<string, unknown> | null | undefined;
    if (p === null || p === undefined || typeof p !== 'object' || o.filters === null || o.filters === undefined)
      throw notFound();
    if (!Array.isArray(o.filters))
      throw jsonParseError('Cannot deserialize value of type `List<RelationEntityTypeFilter>`');
    const root = this.entityId(String(p.rootType ?? ''), String(p.rootId ?? ''));
    this.check(caller, root, false);
    const direction = p.direction === 'FROM' ? 'FROM' : 'TO';
    const group =
      typeof p.relationTypeGroup === 'string' &&
      (RELATION_TYPE_GROUPS as readonly string[]).includes(p.relationTypeGroup)
        ? p.relationTypeGroup
        : 'COMMON';
    const lvl = Number(p.maxLevel ?? 0);
    const maxLevel = !Number.isFinite(lvl) || lvl <= 0 ? Number.MAX_SAFE_INTEGER : Math.floor(lvl);
    const lastOnly = p.fetchLastLevelOnly === true;
    const filters = (o.filters as Record<string, unknown>[]).map((f) => ({
      relationType: typeof f?.relationType === 'string' ? f.relationType : '',
      entityTypes: Array.isArray(f?.entityTypes) ? (f.entityTypes as unknown[]).map(String) : [],
    }));
    const next = (id: string): SimRelation[] =>
      (direction === 'FROM' ? this.ds.relationsFrom(id) : this.ds.relationsTo(id)).filter((r) => r.typeGroup === group);
    const far = (r: SimRelation): EntityId => (direction === 'FROM' ? r.to : r.from);
    // breadth-first; each entity is expanded once
    const seen = new Set<string>([root.id]);
    const found: SimRelation[] = [];
    let frontier = [root.id];
    for (let level = 1; level <= maxLevel && frontier.length > 0; level++) {
      const following: string[] = [];
      for (const id of frontier) {
        for (const r of next(id)) {
          const child = far(r).id;
          const last = level === maxLevel || next(child).length === 0;
          if (!lastOnly || last) found.push(r);
          if (!seen.has(child)) {
            seen.add(child);
            following.push(child);
          }
        }
      }
      frontier = following;
    }
    const match = (r: SimRelation): boolean =>
      filters.length === 0 ||
      filters.some(
        (f) =>
          (f.relationType === '' || f.relationType === r.type) &&
          (f.entityTypes.length === 0 || f.entityTypes.includes(far(r).entityType)),
      );
    const out = this.readable(caller, found.filter(match));
    if (!info) return out.map((r) => this.json(r));
    return out.map((r) => {
      const j = this.infoJson(r);
      if (direction === 'FROM') delete j.fromName;
      else delete j.toName;
      return j;
    });
  }
}

/**
 * tb-relation's per-message work: the operation (the node's, or msg.operation), the request (the other end read
 * from the message or picked in the dialog, checked before anything is sent), the REST calls of each entity and what
 * they put on the message.
 */
import type { NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import type { Props } from '../../families/device-action';
import { countStatus, status } from '../../node-red/status';
import type { TypedValue } from '../../node-red/typed-value';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import { prepareTarget, type TargetRules } from '../../protocol/targets';
import type { EntityId } from '../../protocol/types';
import { prepareOperation, type Bag, type OptionReader } from '../../settings/options';
import { prepareRelationRequest, relationKey, relationsQuery, type RelationRequest } from './logic';
import { RELATION_OPERATIONS, TB_RELATION, type RelationOperation, type RelationSettings } from './settings';

/** The other end of this message's relation (create, delete): one entity. */
export async function relatedOf(
  related: TypedValue,
  msg: NodeMessageInFlow,
  rules: TargetRules,
): Promise<EntityId | undefined> {
  const r = related.resolve(msg);
  const s = r instanceof Promise ? await r : r;
  if (s.value === undefined || s.value === null || s.value === '') return undefined;
  return prepareTarget(s.value, s.field, rules);
}

export async function relationRequest(
  config: Pick<RelationSettings, 'operation' | 'direction' | 'typeGroup' | 'maxLevel' | 'lastLevelOnly'>,
  msg: NodeMessageInFlow,
  options: OptionReader,
  related: () => Promise<EntityId | undefined>,
): Promise<RelationRequest> {
  const m = msg as unknown as Bag;
  const operation = prepareOperation(
    config.operation,
    m,
    RELATION_OPERATIONS,
    TB_RELATION.settings.operation.default as RelationOperation,
  );
  const other = operation === 'find' ? undefined : await related();
  return prepareRelationRequest(operation, config, options, other);
}

/** One entity's work: the REST calls and the message properties they give (`single`: not part of a bulk). */
export async function relationWork(
  client: PlatformClient,
  e: EntityId,
  req: RelationRequest,
  call: CallOptions = {},
  single = true,
): Promise<Props> {
  const rel = client.relations;
  if (req.operation === 'find') {
    const found = await rel.find(relationsQuery(e, req), call);
    // For one entity the found list is also msg.entity, as a query node's Output can set it: the next device action
    // then acts on each of them. In a bulk each result keeps the entity it was found from.
    return single ? { payload: found, entity: found } : { payload: found };
  }
  const key = relationKey(e, req);
  const relation = { from: key.from, to: key.to, type: key.type, typeGroup: key.typeGroup };
  if (req.operation === 'create') {
    const { created } = await rel.create(key, call);
    return { payload: { ...relation, created }, created };
  }
  const { deleted } = await rel.delete(key, call);
  return { payload: { ...relation, deleted }, deleted };
}

export function relationStatus(RED: NodeAPI, req: RelationRequest, props: Props): NodeStatus {
  switch (req.operation) {
    case 'create':
      return status(RED, 'green', 'dot', props.created ? 'relationCreated' : 'relationExisted');
    case 'delete':
      return status(RED, 'green', 'dot', props.deleted ? 'relationDeleted' : 'relationMissing');
    default: {
      const p = props.payload;
      return countStatus(RED, Array.isArray(p) ? p.length : 0, 'related', 'oneRelated', 'noRelated');
    }
  }
}

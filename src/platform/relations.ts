/**
 * Relations over REST: create (left as it is when it exists: a save of an existing relation would replace its
 * additional info), delete (a relation that does not exist is no error), and the relations query with the names of
 * the related entities. Every request goes through the Requester (auth, the retry after 401 "token expired", the
 * 429 policy, our error classes). Nothing in here knows about Node-RED.
 */
import { TbApiError } from '../errors';
import {
  relatedEntities,
  relationBody,
  relationParams,
  relationsQueryBody,
  type RelatedEntity,
  type RelationKey,
  type RelationsQuery,
} from '../protocol/relations';
import type { EntityId } from '../protocol/types';
import { explained, statusOf } from './explain';
import type { CallOptions, Requester } from './requester';

/** The server's answer to a relation that does not exist (an end that does not exist names its type and id). */
const NO_SUCH_RELATION = "Requested item wasn't found!";

function isMissingRelation(err: unknown): boolean {
  return err instanceof TbApiError && err.status === 404 && err.serverMessage === NO_SUCH_RELATION;
}

function keyText(k: RelationKey): string {
  return `${k.from.entityType} ${k.from.id} -[${k.type}]-> ${k.to.entityType} ${k.to.id}`;
}

/** 404 / 403 in words: which end is missing, or why the user may not. */
function aboutRelation(err: unknown, what: string): unknown {
  const status = statusOf(err);
  if (status === 404)
    return explained(err, `Check both entities exist: ThingsBoard could not ${what} (an entity was not found)`);
  if (status === 403)
    return explained(
      err,
      `Use a user allowed to write both entities: ThingsBoard refused to ${what} (a customer user may relate ` +
        "only its customer's devices, assets, entity views and edges)",
    );
  return err;
}

export class Relations {
  constructor(private readonly requester: Requester) {}

  /** Whether the relation exists (`GET /api/relation`: 404 "Requested item wasn't found!" when it does not). */
  async exists(k: RelationKey, opts?: CallOptions): Promise<boolean> {
    try {
      await this.requester.request('GET', '/api/relation', undefined, {
        ...opts,
        params: relationParams(k),
        delivery: 'idempotent',
      });
      return true;
    } catch (err) {
      if (isMissingRelation(err)) return false;
      throw aboutRelation(err, `read the relation ${keyText(k)}`);
    }
  }

  /**
   * Creates the relation unless it exists: `created` says which. `POST /api/relation` (every version) is an upsert,
   * so sending it again after a lost answer makes no second relation.
   */
  async create(k: RelationKey, opts?: CallOptions): Promise<{ created: boolean }> {
    if (await this.exists(k, opts)) return { created: false };
    try {
      await this.requester.request('POST', '/api/relation', relationBody(k), { ...opts, delivery: 'idempotent' });
    } catch (err) {
      throw aboutRelation(err, `create the relation ${keyText(k)}`);
    }
    return { created: true };
  }

  /** Deletes the relation; `deleted: false` when there was none (no error). */
  async delete(k: RelationKey, opts?: CallOptions): Promise<{ deleted: boolean }> {
    try {
      await this.requester.request('DELETE', '/api/relation', undefined, {
        ...opts,
        params: relationParams(k),
        delivery: 'idempotent',
      });
      return { deleted: true };
    } catch (err) {
      if (isMissingRelation(err)) return { deleted: false };
      throw aboutRelation(err, `delete the relation ${keyText(k)}`);
    }
  }

  /** The entities related to the root (`POST /api/relations/info`), each once, with its name. */
  async find(q: RelationsQuery, opts?: CallOptions): Promise<RelatedEntity[]> {
    let answer: unknown;
    try {
      answer = await this.requester.request('POST', '/api/relations/info', relationsQueryBody(q), {
        ...opts,
        delivery: 'idempotent',
      });
    } catch (err) {
      throw aboutRelation(err, `find the relations of ${rootText(q.root)}`);
    }
    return relatedEntities(answer, q.direction);
  }
}

function rootText(e: EntityId): string {
  return `${e.entityType} ${e.id}`;
}

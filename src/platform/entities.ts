/**
 * Entity management over REST: devices, assets, customers and entity views created or updated by name, read,
 * deleted, assigned to a customer and unassigned, and a device's access token. Every request goes through the
 * Requester (auth, the retry after "token expired", the 429 policy, our error classes).
 *
 * The server's traps are handled here, once:
 * - an update replaces the whole object, so an update is the entity as read with the row's fields changed
 *   (protocol/entities.ts `mergeUpdate`) and its version; a 409 (someone changed it meanwhile) is read again and
 *   retried once, then reported;
 * - a profile name that does not exist would be created by the server: it is checked against the tenant's profiles
 *   first, and an unknown one is an error;
 * - a create is sent at most once (a lost connection after it went out is not resent); a create that meets "already
 *   exists" (another writer, or our own earlier try that did go through) is, for a create-or-update, an update;
 * - a by-name look-up answers 404 for "absent"; a customer user may not look up by name (403), said in words;
 * - the entity a view shows is looked up (by name, or checked by id) before the view is written: the server would
 *   save a view of nothing.
 * Nothing in here knows about Node-RED.
 */
import { TbApiError, TbError, TbInputError } from '../errors';
import {
  createBody,
  entityIdOf,
  mergeUpdate,
  type EntityAction,
  type EntitySpec,
  type ManagedType,
  type ViewSpec,
} from '../protocol/entities';
import { explained } from './explain';
import type { PlatformLookups } from './lookups';
import { checkObject, type CallOptions, type Requester } from './requester';

type Obj = Record<string, unknown>;

/** The path segment of each type (`/api/entityView/{id}`), and its name in messages, with its article. */
const PATH = { DEVICE: 'device', ASSET: 'asset', CUSTOMER: 'customer', ENTITY_VIEW: 'entityView' } as const;
const WORD = { DEVICE: 'device', ASSET: 'asset', CUSTOMER: 'customer', ENTITY_VIEW: 'entity view' } as const;
const A = { DEVICE: 'a device', ASSET: 'an asset', CUSTOMER: 'a customer', ENTITY_VIEW: 'an entity view' } as const;
const BY_NAME = {
  DEVICE: ['/api/tenant/devices', 'deviceName'],
  ASSET: ['/api/tenant/assets', 'assetName'],
  CUSTOMER: ['/api/tenant/customers', 'customerTitle'],
  ENTITY_VIEW: ['/api/tenant/entityViews', 'entityViewName'],
} as const;

/** What one create-or-update did. */
export interface SaveResult {
  entity: Obj;
  action: EntityAction;
}

export type SaveMode = 'upsert' | 'create' | 'update';

function isDuplicate(err: unknown): boolean {
  return err instanceof TbApiError && err.status === 400 && /already exists/.test(err.serverMessage ?? '');
}

function isConflict(err: unknown): boolean {
  return err instanceof TbApiError && err.status === 409;
}

/** The tenant's profile names of each kind, read once for the rows of one message. */
export type ProfileMemo = Map<ManagedType, Promise<string[]>>;

export class EntityManagement {
  constructor(
    private readonly requester: Requester,
    private readonly lookups: PlatformLookups,
  ) {}

  /** The entity named `name`, or null when there is none (`GET /api/tenant/devices?deviceName=` and the others). */
  async findByName(type: ManagedType, name: string, opts?: CallOptions): Promise<Obj | null> {
    const [path, param] = BY_NAME[type];
    try {
      const body = await this.requester.request('GET', path, undefined, { ...opts, params: { [param]: name } });
      return checkObject<Obj>(body, path, A[type]);
    } catch (err) {
      if (err instanceof TbApiError && err.status === 404 && err.errorCode === 32) return null;
      if (err instanceof TbApiError && err.status === 403)
        throw explained(
          err,
          `Log in as a tenant administrator to find ${A[type]} by name: ThingsBoard lets a customer user ` +
            'pick its entities by id only',
        );
      throw explained(err, `Could not look up the ${WORD[type]} "${name}"`);
    }
  }

  /** The entity named `name`; TB_NOT_FOUND when there is none. */
  async mustFind(type: ManagedType, name: string, opts?: CallOptions): Promise<Obj> {
    const e = await this.findByName(type, name, opts);
    if (!e) throw new TbError('TB_NOT_FOUND', `Check the name: no ${WORD[type]} is named "${name}"`);
    return e;
  }

  /** `GET /api/device/{id}` (and the others). */
  async get(type: ManagedType, id: string, opts?: CallOptions): Promise<Obj> {
    const path = `/api/${PATH[type]}/${encodeURIComponent(id)}`;
    try {
      return checkObject<Obj>(await this.requester.request('GET', path, undefined, opts), path);
    } catch (err) {
      throw explained(err, `Could not read the ${WORD[type]} ${id}`);
    }
  }

  /**
   * The profile name, checked to exist among the tenant's device (asset) profiles: the server would silently create
   * a profile of an unknown name.
   */
  async checkProfile(type: ManagedType, profile: string, opts?: CallOptions, memo?: ProfileMemo): Promise<void> {
    if (type === 'CUSTOMER' || type === 'ENTITY_VIEW') return;
    let asked = memo?.get(type);
    if (!asked) {
      asked = this.lookups.profileNames(type, opts);
      if (memo) {
        memo.set(type, asked);
        // A failed read is not kept: the next row asks again.
        asked.catch(() => memo.delete(type));
      }
    }
    const names = await asked;
    if (!names.includes(profile)) {
      const known = names.slice(0, 10).join(', ');
      throw new TbInputError(
        'profile',
        `Pick an existing ${WORD[type]} profile: "${profile}" is none of the tenant's (${known}); ` +
          'a profile is never created by this node',
      );
    }
  }

  /** `POST /api/device` (and the others), at most once. */
  private async post(type: ManagedType, body: Obj, accessToken: string | undefined, opts?: CallOptions): Promise<Obj> {
    const path = `/api/${PATH[type]}`;
    const params = accessToken !== undefined ? { accessToken } : undefined;
    const answer = await this.requester.request('POST', path, body, { ...opts, params, delivery: 'atMostOnce' });
    return checkObject<Obj>(answer, path, A[type]);
  }

  /**
   * Creates or updates the entity the spec names (`mode`: both, create only, update only), then sets its
   * server-scope attributes. A failure after a create says what was created. `memo`: the profile names read for
   * the rows of one message, so that a list of rows reads them once.
   */
  async save(spec: EntitySpec, mode: SaveMode, opts?: CallOptions, memo?: ProfileMemo): Promise<SaveResult> {
    if (spec.profile !== undefined) await this.checkProfile(spec.type, spec.profile, opts, memo);
    if (spec.view) spec = { ...spec, view: await this.resolveViewed(spec.view, opts) };
    let current = await this.findByName(spec.type, spec.name, opts);
    let result: SaveResult;
    if (current === null) {
      if (mode === 'update')
        throw new TbError(
          'TB_NOT_FOUND',
          `Check the name, or create it: no ${WORD[spec.type]} is named "${spec.name}"`,
        );
      if (spec.view) checkNewView(spec.view);
      try {
        result = { entity: await this.post(spec.type, createBody(spec), spec.accessToken, opts), action: 'created' };
      } catch (err) {
        // someone (or our own earlier try) made it meanwhile: a create-or-update updates it
        if (mode !== 'upsert' || !isDuplicate(err) || spec.accessToken !== undefined)
          throw explained(err, `Could not create the ${WORD[spec.type]} "${spec.name}"`);
        current = await this.mustFind(spec.type, spec.name, opts);
        result = await this.update(spec, current, opts);
      }
    } else {
      if (mode === 'create')
        throw new TbError(
          'TB_BAD_REQUEST',
          `Pick another name, or choose "create or update": ${A[spec.type]} named "${spec.name}" exists`,
        );
      result = await this.update(spec, current, opts);
    }
    if (spec.attributes && Object.keys(spec.attributes).length) {
      const id = entityIdOf(result.entity);
      if (!id) throw new TbError('TB_BAD_RESPONSE', `ThingsBoard answered the save of "${spec.name}" without an id`);
      const path = `/api/plugins/telemetry/${id.entityType}/${id.id}/attributes/SERVER_SCOPE`;
      try {
        await this.requester.request('POST', path, spec.attributes, { ...opts, delivery: 'idempotent' });
      } catch (err) {
        throw explained(
          err,
          `The ${WORD[spec.type]} "${spec.name}" was ${result.action} (id ${id.id}), but its attributes were not ` +
            'set; send the row again to set them',
        );
      }
    }
    return result;
  }

  /**
   * The view's entity as an id: one named is looked up, one given by id is checked to exist. An unknown one is an
   * input error naming the row's field; nothing is written.
   */
  private async resolveViewed(view: ViewSpec, opts?: CallOptions): Promise<ViewSpec> {
    if (view.entity) {
      const { entityType, id } = view.entity;
      try {
        await this.get(entityType, id, opts);
      } catch (err) {
        if (err instanceof TbApiError && err.status === 404)
          throw new TbInputError(
            `${view.field}.entity`,
            `Check ${view.field}.entity: no ${WORD[entityType]} has the id ${id}`,
          );
        throw err;
      }
      return view;
    }
    if (view.entityName === undefined) return view;
    const type = view.entityType ?? 'DEVICE';
    const e = await this.findByName(type, view.entityName, opts);
    const id = e ? entityIdOf(e) : undefined;
    if (!id)
      throw new TbInputError(
        `${view.field}.entityName`,
        `Check ${view.field}.entityName: no ${WORD[type]} is named "${view.entityName}"` +
          (view.entityType === undefined ? ' (set entityType to ASSET for an asset)' : ''),
      );
    return { ...view, entity: { entityType: type, id: id.id } };
  }

  /** The merged update, sent with the version read; a 409 is read again and retried once, then reported. */
  private async update(spec: EntitySpec, current: Obj, opts?: CallOptions): Promise<SaveResult> {
    for (let attempt = 0; ; attempt++) {
      const body = mergeUpdate(spec, current);
      if (body === null) return { entity: current, action: 'unchanged' };
      try {
        return { entity: await this.post(spec.type, body, undefined, opts), action: 'updated' };
      } catch (err) {
        if (isConflict(err) && attempt === 0) {
          const id = entityIdOf(current);
          current = id ? await this.get(spec.type, id.id, opts) : await this.mustFind(spec.type, spec.name, opts);
          continue;
        }
        if (isConflict(err))
          throw explained(
            err,
            `Send the row again: the ${WORD[spec.type]} "${spec.name}" was changed by someone else twice while it ` +
              'was updated',
          );
        throw explained(err, `Could not update the ${WORD[spec.type]} "${spec.name}"`);
      }
    }
  }

  /** Deletes the entity named `name`; one that does not exist is TB_NOT_FOUND. */
  async remove(type: ManagedType, name: string, opts?: CallOptions): Promise<Obj> {
    const e = await this.mustFind(type, name, opts);
    const id = entityIdOf(e) as { id: string };
    try {
      await this.requester.request('DELETE', `/api/${PATH[type]}/${id.id}`, undefined, opts);
    } catch (err) {
      throw explained(err, `Could not delete the ${WORD[type]} "${name}"`);
    }
    return e;
  }

  /** Assigns the device, asset or entity view named `name` to the customer titled `customer`. */
  async assign(
    type: 'DEVICE' | 'ASSET' | 'ENTITY_VIEW',
    name: string,
    customer: string,
    opts?: CallOptions,
  ): Promise<Obj> {
    const e = await this.mustFind(type, name, opts);
    const c = await this.mustFind('CUSTOMER', customer, opts);
    const path = `/api/customer/${(entityIdOf(c) as { id: string }).id}/${PATH[type]}/${(entityIdOf(e) as { id: string }).id}`;
    try {
      return checkObject<Obj>(await this.requester.request('POST', path, undefined, opts), path);
    } catch (err) {
      throw explained(err, `Could not assign the ${WORD[type]} "${name}" to "${customer}"`);
    }
  }

  /** Unassigns the device, asset or entity view named `name`; one that is not assigned is left as it is (no error). */
  async unassign(type: 'DEVICE' | 'ASSET' | 'ENTITY_VIEW', name: string, opts?: CallOptions): Promise<SaveResult> {
    const e = await this.mustFind(type, name, opts);
    const owner = (e.customerId as { id?: string } | undefined)?.id;
    if (owner === undefined || owner === NULL_UUID) return { entity: e, action: 'unchanged' };
    const path = `/api/customer/${PATH[type]}/${(entityIdOf(e) as { id: string }).id}`;
    try {
      return {
        entity: checkObject<Obj>(await this.requester.request('DELETE', path, undefined, opts), path),
        action: 'unassigned',
      };
    } catch (err) {
      throw explained(err, `Could not unassign the ${WORD[type]} "${name}"`);
    }
  }

  /** The device's credentials record (`GET /api/device/{id}/credentials`). */
  async credentials(name: string, opts?: CallOptions): Promise<{ device: Obj; credentials: Obj }> {
    const device = await this.mustFind('DEVICE', name, opts);
    const path = `/api/device/${(entityIdOf(device) as { id: string }).id}/credentials`;
    try {
      return {
        device,
        credentials: checkObject<Obj>(await this.requester.request('GET', path, undefined, opts), path),
      };
    } catch (err) {
      throw explained(err, `Could not read the credentials of the device "${name}"`);
    }
  }

  /**
   * Sets the device's access token: the credentials record as read (its own id and version), with the new token.
   * The token is never put in an error message.
   */
  async setAccessToken(name: string, token: string, opts?: CallOptions): Promise<{ device: Obj; credentials: Obj }> {
    const { device, credentials } = await this.credentials(name, opts);
    const body = { ...credentials, credentialsType: 'ACCESS_TOKEN', credentialsId: token, credentialsValue: null };
    try {
      const saved = await this.requester.request('POST', '/api/device/credentials', body, opts);
      return { device, credentials: checkObject<Obj>(saved, '/api/device/credentials') };
    } catch (err) {
      throw explained(err, `Could not set the access token of the device "${name}"`);
    }
  }
}

/** A view to be created needs its type and the entity it shows: said before anything is written. */
function checkNewView(view: ViewSpec): void {
  if (view.viewType === undefined)
    throw new TbInputError(
      `${view.field}.type`,
      `Give ${view.field}.type to create the entity view: its type is free text (e.g. roomView), not a profile`,
    );
  if (!view.entity)
    throw new TbInputError(
      `${view.field}.entityName`,
      `Give ${view.field}.entityName (or ${view.field}.entity) to create the entity view: the device or asset it shows`,
    );
}

/** ThingsBoard's "no customer" id. */
export const NULL_UUID = '13814000-1dd2-11b2-8080-808080808080';

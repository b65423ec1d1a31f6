/**
 * tb-entity's per-message work (devices, assets, customers, entity views): the rows of the message (msg.payload:
 * one object, a name, or a list of either), the operation on each (create or update by name, get, delete, assign,
 * unassign, the access token) with bounded concurrency, and the output: one row's entity and action on the message,
 * or one result per row in the list's order (`ok`, `entity`, `action`, or `error`), like the device actions.
 */
import type { NodeAPI, NodeMessage, NodeMessageInFlow } from 'node-red';
import { TbError, TbInputError } from '../../errors';
import { Activity } from '../../node-red/input';
import { actionFailureStatus, status } from '../../node-red/status';
import { errorEntry, forEachBulk, type Outcome, type StopSignal } from '../../platform/bulk';
import type { PlatformClient } from '../../platform/client';
import type { ProfileMemo } from '../../platform/entities';
import type { CallOptions } from '../../platform/requester';
import { entityIdOf, readSpec, type EntitySpec, type ManagedType } from '../../protocol/entities';
import { OptionReader, prepareOperation, type Bag, type Sourced } from '../../settings/options';
import { OPERATIONS, type EntitySettings, type Operation } from './settings';

type Obj = Record<string, unknown>;

/** Why the credentials operations refuse the other types, in words. */
const NO_CREDENTIALS: Record<Exclude<ManagedType, 'DEVICE'>, string> = {
  ASSET: 'an asset has none',
  CUSTOMER: 'a customer has none',
  ENTITY_VIEW: 'an entity view has none (it shows the data of its device)',
};

/** The most rows one message may carry: a list is kept whole in memory with its results. */
export const MAX_ROWS = 100_000;

/** What one row's work gives: the entity (or the credentials), and what was done. */
export interface RowResult {
  entity: Obj;
  action: string;
  credentials?: Obj;
}

/** One message's rows, read and checked before anything is sent. */
export interface EntityRequest {
  operation: Operation;
  type: ManagedType;
  bulk: boolean;
  rows: EntitySpec[];
  customers: (string | undefined)[];
  tokens: (string | undefined)[];
  /** The profile names read for this message's rows (once for a list). */
  profiles: ProfileMemo;
  /** Message properties set but not used: the node's dialog fixes them. */
  ignored: string[];
}

/** A Profile or Customer: text (a number is read as its text), or nothing. */
function textOption(o: Sourced | undefined): string {
  if (o === undefined) return '';
  if (typeof o.value === 'string') return o.value.trim();
  if (typeof o.value === 'number') return String(o.value);
  throw new TbInputError(o.field, `${o.field} must be a name, as text`);
}

/** The rows of msg.payload, each checked (a bad one names its field; nothing is sent). */
export function prepareRequest(msg: NodeMessageInFlow, s: EntitySettings): EntityRequest {
  const m = msg as unknown as Bag;
  const operation = prepareOperation(s.operation, m, OPERATIONS, 'upsert');
  const type = s.entityType as ManagedType;
  const payload = msg.payload;
  const bulk = Array.isArray(payload);
  if (payload === undefined || payload === null || payload === '')
    throw new TbInputError(
      'msg.payload',
      'Put the row in msg.payload: an object with a name, a name, or a list of them',
    );
  const list: unknown[] = bulk ? (payload as unknown[]) : [payload];
  if (list.length > MAX_ROWS)
    throw new TbInputError('msg.payload', `Split the list: at most ${MAX_ROWS} rows a message (it has ${list.length})`);
  // The dialog wins: a Profile or Customer set there (placeholders resolved already) is used, else the message's.
  const options = new OptionReader(s as unknown as Bag, m);
  const profile = textOption(options.get('profile'));
  const customer = textOption(options.get('customer'));
  const req: EntityRequest = {
    operation,
    type,
    bulk,
    rows: [],
    customers: [],
    tokens: [],
    profiles: new Map(),
    ignored: options.ignored,
  };
  list.forEach((row, i) => {
    const field = bulk ? `msg.payload[${i}]` : 'msg.payload';
    const r = typeof row === 'string' ? { [type === 'CUSTOMER' ? 'title' : 'name']: row } : row;
    const spec = readSpec(r, type, field);
    // customers and entity views have no profile (a view's `type` is its own free text)
    if (spec.profile === undefined && profile && type !== 'CUSTOMER' && type !== 'ENTITY_VIEW') spec.profile = profile;
    const own = (r as Obj).customer;
    const c = typeof own === 'string' && own !== '' ? own : customer || undefined;
    if (operation === 'assign' && c === undefined)
      throw new TbInputError(`${field}.customer`, `Give ${field}.customer or the node's Customer: whom to assign to`);
    if ((operation === 'assign' || operation === 'unassign') && type === 'CUSTOMER')
      throw new TbInputError(
        'entityType',
        'Pick a device, an asset or an entity view: a customer is not assigned to a customer',
      );
    if ((operation === 'getCredentials' || operation === 'setCredentials') && type !== 'DEVICE')
      throw new TbInputError('entityType', `Pick Device: only devices have credentials, ${NO_CREDENTIALS[type]}`);
    if (operation === 'setCredentials' && spec.accessToken === undefined)
      throw new TbInputError(`${field}.accessToken`, `Give ${field}.accessToken: the new access token`);
    req.rows.push(spec);
    req.customers.push(c);
    req.tokens.push(spec.accessToken);
  });
  return req;
}

/** One row's work. */
export async function runRow(
  client: PlatformClient,
  req: EntityRequest,
  i: number,
  call: CallOptions,
): Promise<RowResult> {
  const e = client.entities;
  const spec = req.rows[i];
  switch (req.operation) {
    case 'upsert':
    case 'create':
    case 'update':
      return e.save(spec, req.operation, call, req.profiles);
    case 'get':
      return { entity: await e.mustFind(req.type, spec.name, call), action: 'found' };
    case 'delete':
      return { entity: await e.remove(req.type, spec.name, call), action: 'deleted' };
    case 'assign':
      return {
        entity: await e.assign(req.type as 'DEVICE' | 'ENTITY_VIEW', spec.name, req.customers[i] as string, call),
        action: 'assigned',
      };
    case 'unassign':
      return e.unassign(req.type as 'DEVICE' | 'ENTITY_VIEW', spec.name, call);
    case 'getCredentials': {
      const r = await e.credentials(spec.name, call);
      return { entity: r.device, action: 'found', credentials: r.credentials };
    }
    case 'setCredentials': {
      const r = await e.setAccessToken(spec.name, req.tokens[i] as string, call);
      return { entity: r.device, action: 'updated', credentials: r.credentials };
    }
  }
}

/** The token of a credentials record, as the output gives it (the access token is what was asked for). */
function credentialsOut(c: Obj | undefined): Obj | undefined {
  if (!c) return undefined;
  return { credentialsType: c.credentialsType, accessToken: c.credentialsId };
}

function resultEntry(o: Outcome<RowResult>, spec: EntitySpec): Obj {
  if (!o.ok) return { ok: false, name: spec.name, error: errorEntry(o.error) };
  const out: Obj = { ok: true, name: spec.name, action: o.value.action, entity: o.value.entity };
  const c = credentialsOut(o.value.credentials);
  if (c) out.credentials = c;
  return out;
}

/** Runs one message: one row on the message, or each row of a list with at most `concurrency` at once. */
export async function runMessage(
  RED: NodeAPI,
  activity: Activity,
  stop: StopSignal,
  client: PlatformClient,
  req: EntityRequest,
  msg: NodeMessageInFlow,
  send: (m: NodeMessage) => void,
  concurrency: number,
  call: CallOptions,
): Promise<void> {
  const m = msg as NodeMessage & Obj;
  activity.start();
  if (!req.bulk) {
    let r: RowResult;
    try {
      r = await runRow(client, req, 0, call);
    } catch (err) {
      activity.end(actionFailureStatus(RED, err));
      throw err;
    }
    if (stop.stopped) return activity.end({});
    m.payload = r.entity;
    m.action = r.action;
    const id = entityIdOf(r.entity);
    if (id) m.entity = id;
    const c = credentialsOut(r.credentials);
    if (c) m.credentials = c;
    send(m);
    activity.end(status(RED, 'green', 'dot', 'bulkDone', { count: 1 }));
    return;
  }
  const total = req.rows.length;
  const results: Obj[] = new Array(total);
  let failed = 0;
  let settled = 0;
  let first: unknown;
  const every = Math.max(1, Math.floor(total / 20));
  await forEachBulk(
    req.rows,
    concurrency,
    (_spec, i) => runRow(client, req, i, call),
    stop,
    (i, o) => {
      results[i] = resultEntry(o, req.rows[i]);
      if (!o.ok) {
        failed++;
        if (first === undefined) first = o.error;
      }
      settled++;
      if (settled < total && settled % every === 0)
        activity.show(status(RED, 'blue', 'dot', 'bulkProgress', { count: settled, total }));
    },
  );
  if (stop.stopped) return activity.end({});
  m.payload = results;
  m.failed = failed;
  m.entity = results.flatMap((r) => {
    const id = r.ok ? entityIdOf(r.entity) : undefined;
    return id ? [id] : [];
  });
  if (total > 0 && failed === total) {
    const e = errorEntry(first);
    const err = new TbError(
      (first instanceof TbError ? first.code : 'TB_HTTP_ERROR') as TbError['code'],
      `All ${total} rows failed; the first: ${e.message}`,
    );
    activity.end(actionFailureStatus(RED, err));
    throw err;
  }
  send(m);
  activity.end(
    failed
      ? status(RED, 'yellow', 'dot', 'bulkPartial', { count: total - failed, total, failed })
      : status(RED, 'green', 'dot', 'bulkDone', { count: total }),
  );
}

/**
 * tb-attributes' per-message work: the operation and scope (the node's, or msg.operation / msg.scope), the request
 * (src/query/attributes: checked before anything is sent; a save's values from msg.payload or the dialog's rows), the REST call of each entity
 * (src/platform/device-data) and what it puts on the message.
 */
import type { NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import type { DeviceActionDef, Props } from '../../families/device-action';
import type { ValueRows, ValueRowsDef } from '../../families/value-rows';
import { countStatus, status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import type { AttributeScope, EntityId } from '../../protocol/types';
import type { Bag, OptionReader } from '../../settings/options';
import { prepareOperation } from '../../settings/options';
import {
  ATTRIBUTE_OPERATIONS,
  flatAttributes,
  prepareAttributeRequest,
  prepareScope,
  type AttributeRequest,
} from './logic';

export interface AttributesDef extends DeviceActionDef, ValueRowsDef {
  operation?: string;
  scope?: string;
}

/** The configured scope, checked at deploy. */
export const SCOPE_SETTINGS = ['SERVER_SCOPE', 'SHARED_SCOPE', 'CLIENT_SCOPE', 'any', 'msg'] as const;

/** The text settings that may hold placeholders (`{{msg.<path>}}`…), and the options a message may set when they are left empty. */
export const ATTRIBUTE_SETTINGS = ['keys'] as const;

/** The request of one message (throws a TbInputError before anything is sent); a save's values from msg.payload or `rows`. */
export async function attributeRequest(
  config: AttributesDef,
  msg: NodeMessageInFlow,
  options: OptionReader,
  rows: ValueRows,
): Promise<AttributeRequest> {
  const m = msg as unknown as Bag;
  const operation = prepareOperation(config.operation, m, ATTRIBUTE_OPERATIONS, 'save');
  const scope = prepareScope(config.scope, m, operation);
  if (operation !== 'save') return prepareAttributeRequest(operation, scope, options, msg.payload);
  const { values, fromRows } = await rows.of(msg);
  return prepareAttributeRequest(operation, scope, options, values, fromRows);
}

/** One entity's work: the REST call and the message properties it gives. */
export async function attributeWork(
  client: PlatformClient,
  e: EntityId,
  req: AttributeRequest,
  format: 'flat' | 'raw',
  call: CallOptions = {},
): Promise<Props> {
  const data = client.deviceData;
  switch (req.operation) {
    case 'save':
      await data.saveAttributes(e, req.scope, req.values, call);
      return {};
    case 'read': {
      const lists = await data.readScopes(e, req.scope, req.keys, call);
      if (req.scope !== 'any') {
        const list = lists[req.scope] ?? [];
        if (format === 'raw') return { payload: list };
        const flat = flatAttributes(list);
        return { payload: flat.values, ts: flat.ts };
      }
      if (format === 'raw') return { payload: lists };
      const payload: Record<string, unknown> = {};
      const ts: Record<string, unknown> = {};
      for (const s of Object.keys(lists) as AttributeScope[]) {
        const flat = flatAttributes(lists[s] ?? []);
        payload[s] = flat.values;
        ts[s] = flat.ts;
      }
      return { payload, ts };
    }
    default:
      await data.deleteAttributes(e, req.scope, req.keys, call);
      return { deleted: req.keys };
  }
}

export function attributeStatus(RED: NodeAPI, req: AttributeRequest, props: Props): NodeStatus {
  switch (req.operation) {
    case 'save':
      return status(RED, 'green', 'dot', 'saved');
    case 'read': {
      const p = props.payload;
      let count = 0;
      if (Array.isArray(p)) count = p.length;
      else if (p && typeof p === 'object') {
        if (req.scope === 'any')
          for (const v of Object.values(p))
            count += Array.isArray(v) ? v.length : v && typeof v === 'object' ? Object.keys(v).length : 0;
        else count = Object.keys(p).length;
      }
      return countStatus(RED, count, 'values', 'oneValue', 'noValues');
    }
    default:
      return status(RED, 'green', 'dot', 'deleted');
  }
}

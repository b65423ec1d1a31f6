/**
 * tb-attributes' per-message work: the operation and scope (the node's, or msg.operation / msg.scope), the request
 * (checked before anything is sent; a save's values from msg.payload or the dialog's rows), the REST call of each
 * entity and what it puts on the message.
 */
import type { NodeAPI, NodeMessageInFlow, NodeStatus } from 'node-red';
import type { Props } from '../../families/device-action';
import type { ValueRows } from '../../families/value-rows';
import { countStatus, status } from '../../node-red/status';
import type { PlatformClient } from '../../platform/client';
import type { CallOptions } from '../../platform/requester';
import type { AttributeScope, EntityId } from '../../protocol/types';
import type { Bag, OptionReader } from '../../settings/options';
import { prepareOperation } from '../../settings/options';
import { flatAttributes, prepareAttributeRequest, prepareScope, type AttributeRequest } from './logic';
import { ATTRIBUTE_OPERATIONS, TB_ATTRIBUTES, type AttributeOperation, type AttributesSettings } from './settings';

/**
 * The request of one message (throws a TbInputError before anything is sent); a save's values from msg.payload or
 * `rows`.
 */
export async function attributeRequest(
  config: Pick<AttributesSettings, 'operation' | 'scope'>,
  msg: NodeMessageInFlow,
  options: OptionReader,
  rows: ValueRows,
): Promise<AttributeRequest> {
  const m = msg as unknown as Bag;
  const operation = prepareOperation(
    config.operation,
    m,
    ATTRIBUTE_OPERATIONS,
    TB_ATTRIBUTES.settings.operation.default as AttributeOperation,
  );
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
      // What was written, as tb-telemetry's save says it (with values set in the dialog, msg.payload held none).
      await data.saveAttributes(e, req.scope, req.values, call);
      return { payload: req.values };
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
      // What was done, where a debug node looks first: the keys deleted.
      await data.deleteAttributes(e, req.scope, req.keys, call);
      return { payload: [...req.keys], deleted: req.keys };
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

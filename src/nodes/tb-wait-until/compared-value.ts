/**
 * The value a tb-wait-until condition compares with (`value` / `valueType`, a TypedInput): checked at deploy, read
 * for each message, as a TypedInput.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TypedInput } from '../../node-red/typed-input';
import type { Sourced } from '../../settings/options';
import type { ValueType } from '../../settings/value-rows';

export type { JsonataExpr } from '../../node-red/typed-input';

const PLACES: Record<string, string> = { msg: 'message property', env: 'environment variable' };

/**
 * The value a wait compares with (`value` / `valueType`): fixed (a `str` with placeholders read per message), or read
 * from the message, the context, the environment or a JSONata expression when the wait starts.
 */
export class ComparedValue extends TypedInput {
  constructor(RED: NodeAPI, node: Node, raw: string, type: ValueType) {
    super(RED, node, type, raw, {
      name: 'value',
      placeholders: true,
      blank: (t) => `value: name the ${PLACES[t] ?? `${t} context key`} to read the value from`,
      jsonata: { errorField: 'value' },
    });
  }

  /** The value for this message, and where it was read. */
  async resolve(msg: NodeMessage): Promise<Sourced> {
    return this.read(msg);
  }
}

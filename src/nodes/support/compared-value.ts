/**
 * The value a tb-wait-until condition compares with (`value` / `valueType`, a TypedInput): checked at deploy, read
 * for each message.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../../errors';
import type { Sourced } from '../../query/alarm-actions';
import { fixedTypedValue } from '../../query/value-rows';
import { BoundSettings } from './value-sources';

export type JsonataExpr = ReturnType<NodeAPI['util']['prepareJSONataExpression']>;
export const VALUE_TYPES = ['str', 'num', 'bool', 'json', 'msg', 'flow', 'global', 'env', 'jsonata'] as const;
export type ValueType = (typeof VALUE_TYPES)[number];

/**
 * The value a wait compares with (`value` / `valueType`): fixed (a `str` with placeholders read per message), or read
 * from the message, the context, the environment or a JSONata expression when the wait starts.
 */
export class ComparedValue {
  readonly problem: TbError | undefined;
  readonly fixed: Sourced | undefined;
  private readonly bound: { settings: BoundSettings; field: string } | undefined;
  private readonly expr: JsonataExpr | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    private readonly raw: string,
    readonly type: ValueType,
  ) {
    let problem: TbError | undefined;
    switch (type) {
      case 'str': {
        const b = new BoundSettings(RED, node, { value: raw }, ['value']);
        if (b.any) {
          this.bound = { settings: b, field: b.whole('value')?.text ?? 'value' };
          problem = b.problem;
        } else this.fixed = { value: raw, field: 'value' };
        break;
      }
      case 'num':
      case 'bool':
      case 'json':
        try {
          this.fixed = { value: type === 'json' && raw.trim() === '' ? undefined : fixedTypedValue(type, raw, 'value'), field: 'value' };
        } catch (err) {
          problem = err as TbError;
        }
        break;
      case 'jsonata':
        try {
          this.expr = RED.util.prepareJSONataExpression(raw, node);
        } catch (err) {
          problem = new TbConfigError(`The JSONata expression of value is not valid: ${(err as Error).message}`);
        }
        break;
      default:
        if (raw.trim() === '')
          problem = new TbConfigError(`value: name the ${type === 'msg' ? 'message property' : type === 'env' ? 'environment variable' : `${type} context key`} to read the value from`);
    }
    this.problem = problem;
  }

  /** The value for this message, and where it was read. */
  async resolve(msg: NodeMessage): Promise<Sourced> {
    if (this.problem) throw this.problem;
    if (this.fixed) return this.fixed;
    const { RED, node, raw } = this;
    switch (this.type) {
      case 'str': {
        const { settings, field } = this.bound as { settings: BoundSettings; field: string };
        const r = await settings.resolve<Record<string, unknown>>({}, msg);
        return { value: r.query.value, field };
      }
      case 'msg':
        try {
          return { value: RED.util.getMessageProperty(msg, raw), field: `msg.${raw}` };
        } catch (err) {
          throw new TbInputError(`msg.${raw}`, `Cannot read msg.${raw}: ${(err as Error).message}`);
        }
      case 'env':
        return { value: RED.util.evaluateNodeProperty(raw, 'env', node, msg), field: `env.${raw}` };
      case 'jsonata':
        return new Promise((resolve, reject) => {
          RED.util.evaluateJSONataExpression(this.expr as JsonataExpr, msg, (err: Error | null, value: unknown) => {
            if (err) reject(new TbInputError('value', `The JSONata expression of value failed: ${err.message}`));
            else resolve({ value, field: 'value (JSONata result)' });
          });
        });
      default:
        return new Promise((resolve, reject) => {
          RED.util.evaluateNodeProperty(raw, this.type, node, msg, (err: Error | null, value: unknown) => {
            if (err) reject(new TbInputError(`${this.type}.${raw}`, `Cannot read ${this.type}.${raw}: ${err.message}`));
            else resolve({ value, field: `${this.type}.${raw}` });
          });
        });
    }
  }
}

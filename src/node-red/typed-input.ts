/**
 * The one place the runtime reads a Node-RED TypedInput setting (str / num / bool / json / msg / flow / global / env /
 * jsonata) for a message. Built once at deploy from the setting's type and value: a JSONata expression is prepared
 * once, a fixed num / bool / json value parsed once (fixedTypedValue), a `str` with `{{…}}` placeholders found once
 * (value-sources); what is wrong with the setting is kept as `problem` (a TbConfigError), for the node to show at
 * deploy and to refuse each message with. `read` gives the value of one message and `field`, the name error messages
 * give it (`msg.x`, `flow.x`, `env.X`, the setting's own name for a fixed value, `<name> (JSONata result)`):
 * synchronously for a fixed value, msg and env (the hot paths: a query from msg.payload is prepared in the same
 * tick), a Promise for flow / global (a context store may be asynchronous), JSONata and context placeholders.
 *
 * Used by TypedValue (the action nodes' settings), ComparedValue (tb-wait-until), QuerySource (a node's query),
 * ValueRows (the JSONata rows of tb-attributes / tb-telemetry) and tb-build-report.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../errors';
import type { Sourced } from '../settings/options';
import { fixedTypedValue, type ValueType } from '../settings/value-rows';
import { BoundSettings, type Settings } from './value-sources';

export type JsonataExpr = ReturnType<NodeAPI['util']['prepareJSONataExpression']>;

/** The types whose value names where to read (a message path, a context key, an environment variable). */
export type PathType = 'msg' | 'flow' | 'global' | 'env';

export interface TypedInputOptions {
  /**
   * The setting's name: the field of a fixed value, and the JSONata wording's default (`The JSONata expression of
   * <name> …`).
   */
  name: string;
  /** A `str` value may hold `{{msg.x}}`-style placeholders, read for each message (else the text is taken as it is). */
  placeholders?: boolean;
  /**
   * The deploy problem of a msg / flow / global / env setting that names nothing (without it, a blank is read as it
   * is).
   */
  blank?: (type: PathType) => string;
  /**
   * The JSONata wording, `<invalid>: <reason>` at deploy and `<failed>: <reason>` for a message (defaults: `The JSONata
   * expression of <name> is not valid` / `… failed`), the result's field (default `<name> (JSONata result)`) and the
   * field a failure names (default: the result's).
   */
  jsonata?: { invalid?: string; failed?: string; field?: string; errorField?: string };
  /**
   * A message path Node-RED cannot read (through a missing object) throws Node-RED's own error, unwrapped. A query
   * and the report's filters have always passed it on so; the other settings say `Cannot read msg.<path>: …`.
   */
  rawMsgErrors?: boolean;
}

/** The problem of a TypedInput's type property that is none of `types` (`got`: the setting as the flow holds it). */
export function typeProblem(
  setting: string,
  type: string,
  types: readonly string[],
  got: unknown = type,
): TbConfigError | undefined {
  return types.includes(type)
    ? undefined
    : new TbConfigError(`${setting} must be one of ${types.join(', ')} (got ${JSON.stringify(got)})`);
}

const NO_SETTINGS: Settings = Object.freeze({});

export class TypedInput {
  /** What is wrong with the setting, found at deploy: `read` throws it. */
  readonly problem: TbError | undefined;
  /**
   * The value fixed in the node (str without placeholders, num, bool, json; a blank json is undefined), read at deploy.
   */
  readonly fixed: Sourced | undefined;
  /** The name the value goes by in error messages. */
  readonly field: string;
  private readonly raw: string;
  private readonly expr: JsonataExpr | undefined;
  private readonly bound: BoundSettings | undefined;
  private readonly failed: string = '';
  private readonly errorField: string = '';

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    readonly type: ValueType,
    value: unknown,
    private readonly opts: TypedInputOptions,
  ) {
    const name = opts.name;
    const raw = value === undefined || value === null ? '' : String(value);
    this.raw = raw;
    let field = name;
    let problem: TbError | undefined;
    switch (type) {
      case 'str': {
        const b = opts.placeholders ? new BoundSettings(RED, node, { [name]: raw }, [name]) : undefined;
        if (b?.any) {
          this.bound = b;
          field = b.whole(name)?.text ?? name; // a whole placeholder is named by it (msg.user)
          problem = b.problem;
        } else this.fixed = { value: raw, field };
        break;
      }
      case 'num':
      case 'bool':
      case 'json':
        try {
          this.fixed = {
            value: type === 'json' && raw.trim() === '' ? undefined : fixedTypedValue(type, raw, name),
            field,
          };
        } catch (err) {
          problem = err as TbError; // fixedTypedValue throws a TbConfigError naming the setting
        }
        break;
      case 'jsonata': {
        const words = opts.jsonata ?? {};
        field = words.field ?? `${name} (JSONata result)`;
        this.failed = words.failed ?? `The JSONata expression of ${name} failed`;
        this.errorField = words.errorField ?? field;
        try {
          this.expr = RED.util.prepareJSONataExpression(raw, node);
        } catch (err) {
          problem = new TbConfigError(
            `${words.invalid ?? `The JSONata expression of ${name} is not valid`}: ${(err as Error).message}`,
          );
        }
        break;
      }
      default:
        field = `${type}.${raw}`;
        if (opts.blank && raw.trim() === '') problem = new TbConfigError(opts.blank(type));
    }
    this.field = field;
    this.problem = problem;
  }

  /** The value for this message, and its field (synchronous for a fixed value, msg and env). Throws `problem`. */
  read(msg: NodeMessage): Sourced | Promise<Sourced> {
    if (this.problem) throw this.problem;
    if (this.fixed) return this.fixed;
    const { RED, node, raw, field } = this;
    switch (this.type) {
      case 'str': {
        const name = this.opts.name;
        const r = (this.bound as BoundSettings).resolve(NO_SETTINGS, msg); // the template's one setting, resolved
        return r instanceof Promise
          ? r.then((x) => ({ value: x.query[name], field }))
          : { value: r.query[name], field };
      }
      case 'msg':
        if (this.opts.rawMsgErrors) return { value: RED.util.getMessageProperty(msg, raw), field };
        try {
          return { value: RED.util.getMessageProperty(msg, raw), field };
        } catch (err) {
          throw new TbInputError(field, `Cannot read ${field}: ${(err as Error).message}`);
        }
      case 'env':
        return { value: RED.util.evaluateNodeProperty(raw, 'env', node, msg), field };
      case 'jsonata':
        return new Promise((resolve, reject) => {
          RED.util.evaluateJSONataExpression(this.expr as JsonataExpr, msg, (err: Error | null, value: unknown) => {
            if (err) reject(new TbInputError(this.errorField, `${this.failed}: ${err.message}`));
            else resolve({ value, field });
          });
        });
      default: // flow, global: through the node's context, any store
        return new Promise((resolve, reject) => {
          RED.util.evaluateNodeProperty(raw, this.type, node, msg, (err: Error | null, value: unknown) => {
            if (err) reject(new TbInputError(field, `Cannot read ${field}: ${err.message}`));
            else resolve({ value, field });
          });
        });
    }
  }
}

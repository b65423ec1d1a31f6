/**
 * A node property set with a TypedInput that also offers "auto" (the node's own default place in the message):
 * where the value comes from for each message, and the name of that place for error messages.
 *
 * - `auto`: the node's rule (e.g. `msg.assignee`);
 * - `str` / `json`: fixed in the node; a `json` value is parsed, and a fixed value checked, once at deploy; a `str`
 *   value may hold placeholders (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`, `{{env.<NAME>}}`), read
 *   for each message with the rules of a bound query (src/nodes/support/value-sources);
 * - `msg`: a message property path (read with RED.util.getMessageProperty);
 * - `jsonata`: an expression, prepared once at deploy and evaluated against the message.
 * A fixed value wins over the message: a message property of the node's own name (`sameName`, e.g. msg.comment)
 * is then ignored, and the node warns once.
 * A problem with the setting itself (bad JSON, bad expression, a fixed value the check refuses) is kept as
 * `problem`: the node shows it at deploy and rejects each message that needs the value with it.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../../errors';
import type { Sourced } from '../../query/alarm-actions';
import { BoundSettings, IgnoredWarnings, type Settings } from './value-sources';

const NO_SETTINGS: Settings = Object.freeze({});

export type ValueType = 'auto' | 'str' | 'json' | 'msg' | 'jsonata';

type JsonataExpr = ReturnType<NodeAPI['util']['prepareJSONataExpression']>;

export interface TypedValueOptions {
  /** The property's name, e.g. "assignee" (its type property is `<name>Type`). */
  name: string;
  value: unknown;
  type: unknown;
  /** The types this property offers (always with 'auto'). */
  types: readonly ValueType[];
  /** Where the value comes from with `auto`. */
  auto: (msg: NodeMessage) => Sourced;
  /** Checks a value fixed in the node (str / json) at deploy; throws a TbError. */
  check?: (value: unknown, field: string) => void;
  /** The message property `auto` reads under the setting's own name (msg.<sameName>): ignored, with a warning, when the value is fixed. */
  sameName?: string;
}

export class TypedValue {
  readonly name: string;
  readonly type: ValueType;
  /** The problem with the setting, found at deploy. */
  readonly problem: TbError | undefined;
  private readonly raw: string;
  private readonly fixed: Sourced | undefined;
  private readonly expr: JsonataExpr | undefined;
  /** A `str` value with placeholders, and the name its value goes by (the placeholder's, when it is the whole value). */
  private readonly bound: { settings: BoundSettings; field: string } | undefined;
  private readonly warnings: IgnoredWarnings;

  constructor(
    private readonly RED: NodeAPI,
    node: Node,
    private readonly opts: TypedValueOptions,
  ) {
    this.name = opts.name;
    this.warnings = IgnoredWarnings.of(node);
    this.raw = opts.value === undefined || opts.value === null ? '' : String(opts.value);
    const t = opts.type === undefined || opts.type === null || opts.type === '' ? 'auto' : String(opts.type);
    this.type = (opts.types as readonly string[]).includes(t) ? (t as ValueType) : 'auto';
    let problem: TbError | undefined;
    if (!(opts.types as readonly string[]).includes(t)) {
      problem = new TbConfigError(`${opts.name}Type must be one of ${opts.types.join(', ')} (got ${JSON.stringify(opts.type)})`);
    } else if (this.type === 'str') {
      const bound = new BoundSettings(RED, node, { [opts.name]: this.raw }, [opts.name]);
      if (bound.any) {
        this.bound = { settings: bound, field: bound.whole(opts.name)?.text ?? opts.name };
        problem = bound.problem;
      } else this.fixed = { value: this.raw, field: opts.name };
    } else if (this.type === 'json') {
      try {
        this.fixed = { value: this.raw.trim() === '' ? undefined : JSON.parse(this.raw), field: opts.name };
      } catch (err) {
        problem = new TbConfigError(`${opts.name} is not valid JSON: ${(err as Error).message}`);
      }
    } else if (this.type === 'msg') {
      if (this.raw.trim() === '') problem = new TbConfigError(`${opts.name}: name the message property to read it from (e.g. payload.${opts.name})`);
    } else if (this.type === 'jsonata') {
      try {
        this.expr = RED.util.prepareJSONataExpression(this.raw, node);
      } catch (err) {
        problem = new TbConfigError(`The JSONata expression of ${opts.name} is not valid: ${(err as Error).message}`);
      }
    }
    if (!problem && this.fixed && this.fixed.value !== undefined && opts.check) {
      try {
        opts.check(this.fixed.value, this.fixed.field);
      } catch (err) {
        problem = err instanceof TbError ? err : new TbConfigError(String(err));
      }
    }
    this.problem = problem;
  }

  /** The value for this message and where it was read (synchronous except for JSONata and context placeholders). */
  resolve(msg: NodeMessage): Sourced | Promise<Sourced> {
    if (this.problem) throw this.problem;
    switch (this.type) {
      case 'auto':
        return this.opts.auto(msg);
      case 'str':
      case 'json':
        if (this.opts.sameName) this.warnings.check(msg, this.opts.sameName, true, this.name);
        return this.bound ? this.resolveBound(msg) : (this.fixed as Sourced);
      case 'msg': {
        const field = `msg.${this.raw}`;
        try {
          return { value: this.RED.util.getMessageProperty(msg, this.raw), field };
        } catch (err) {
          throw new TbInputError(field, `Cannot read ${field}: ${(err as Error).message}`);
        }
      }
      default: {
        const field = `${this.name} (JSONata result)`;
        return new Promise<Sourced>((resolve, reject) => {
          this.RED.util.evaluateJSONataExpression(this.expr as JsonataExpr, msg, (err: Error | null, result: unknown) => {
            if (err) reject(new TbInputError(field, `The JSONata expression of ${this.name} failed: ${err.message}`));
            else resolve({ value: result, field });
          });
        });
      }
    }
  }

  /** A `str` value with placeholders: the whole placeholder's value keeps its type, and is named by it (`msg.user`). */
  private resolveBound(msg: NodeMessage): Sourced | Promise<Sourced> {
    const { settings, field } = this.bound as { settings: BoundSettings; field: string };
    const r = settings.resolve(NO_SETTINGS, msg); // the result holds the template's one setting, resolved
    return r instanceof Promise ? r.then((x) => ({ value: x.query[this.name], field })) : { value: r.query[this.name], field };
  }
}

/**
 * A node property set with a TypedInput that also offers "auto" (the node's own default place in the message):
 * where the value comes from for each message, and the name of that place for error messages.
 *
 * - `auto`: the node's rule (e.g. `msg.assignee`);
 * - `str` / `json`: fixed in the node; a `json` value is parsed, and a fixed value checked, once at deploy; a `str`
 *   value may hold placeholders (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`, `{{env.<NAME>}}`), read
 *   for each message with the rules of a bound query;
 * - `msg`: a message property path (read with RED.util.getMessageProperty);
 * - `jsonata`: an expression, prepared once at deploy and evaluated against the message.
 * A fixed value wins over the message: a message property of the node's own name (`sameName`, e.g. msg.comment)
 * is then ignored, and the node warns once.
 * A problem with the setting itself (bad JSON, bad expression, a fixed value the check refuses) is kept as
 * `problem`: the node shows it at deploy and rejects each message that needs the value with it.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError } from '../errors';
import type { Sourced } from '../settings/options';
import { TypedInput, typeProblem } from './typed-input';
import { IgnoredWarnings } from './value-sources';

export type SourceType = 'auto' | 'str' | 'json' | 'msg' | 'jsonata';

export interface TypedValueOptions {
  /** The property's name, e.g. "assignee" (its type property is `<name>Type`). */
  name: string;
  value: unknown;
  type: unknown;
  /** The types this property offers (always with 'auto'). */
  types: readonly SourceType[];
  /** Where the value comes from with `auto`. */
  auto: (msg: NodeMessage) => Sourced;
  /** Checks a value fixed in the node (str / json) at deploy; throws a TbError. */
  check?: (value: unknown, field: string) => void;
  /**
   * The message property `auto` reads under the setting's own name (msg.<sameName>): ignored, with a warning, when the
   * value is fixed.
   */
  sameName?: string;
}

export class TypedValue {
  readonly name: string;
  readonly type: SourceType;
  /** The problem with the setting, found at deploy. */
  readonly problem: TbError | undefined;
  /** How the value is read for a message (all types but `auto`, the node's own rule). */
  private readonly input: TypedInput | undefined;
  private readonly warnings: IgnoredWarnings;

  constructor(
    RED: NodeAPI,
    node: Node,
    private readonly opts: TypedValueOptions,
  ) {
    this.name = opts.name;
    this.warnings = IgnoredWarnings.of(node);
    const t = opts.type === undefined || opts.type === null || opts.type === '' ? 'auto' : String(opts.type);
    let problem = typeProblem(`${opts.name}Type`, t, opts.types, opts.type);
    this.type = problem ? 'auto' : (t as SourceType);
    if (!problem && this.type !== 'auto') {
      this.input = new TypedInput(RED, node, this.type, opts.value, {
        name: opts.name,
        placeholders: true,
        blank: () => `${opts.name}: name the message property to read it from (e.g. payload.${opts.name})`,
      });
      problem = this.input.problem;
      const fixed = this.input.fixed;
      if (!problem && fixed && fixed.value !== undefined && opts.check) {
        try {
          opts.check(fixed.value, fixed.field);
        } catch (err) {
          problem = err instanceof TbError ? err : new TbConfigError(String(err));
        }
      }
    }
    this.problem = problem;
  }

  /** The value for this message and where it was read (synchronous except for JSONata and context placeholders). */
  resolve(msg: NodeMessage): Sourced | Promise<Sourced> {
    if (this.problem) throw this.problem;
    if (!this.input) return this.opts.auto(msg);
    if (this.opts.sameName && (this.type === 'str' || this.type === 'json'))
      this.warnings.check(msg, this.opts.sameName, true, this.name);
    return this.input.read(msg);
  }
}

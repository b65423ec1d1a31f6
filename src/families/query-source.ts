/**
 * Where a node's query comes from: the `query` property with its TypedInput type (json | msg | flow | global
 * | jsonata). A `json` query is parsed and validated once, at deploy; the other kinds are read and validated
 * for each message. `prepare` is one of the protocol's prepare functions: it validates and returns the
 * wire-ready query, or throws a TbInputError naming the field. `options` go to every `prepare` call: `live`
 * for a WebSocket subscription, REST otherwise.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../errors';
import { TypedInput, typeProblem } from '../node-red/typed-input';
import { checkRefs, readRefs } from '../node-red/value-sources';
import { explainBound, findBindings, isQueryList, resolveBindings, type Bindings } from '../protocol/bindings';
import type { PrepareOptions } from '../protocol/validate';
import { QUERY_TYPES, type QueryType } from '../settings/query';

export type Prepare<T> = (input: unknown, field: string, options?: PrepareOptions) => T;

export class QuerySource<T> {
  readonly type: QueryType;
  private readonly value: string;
  private readonly field: string;
  private fixed: T | undefined;
  /** A problem with the node's own setting (bad JSON, bad expression): every message is rejected with it. */
  private configError: TbError | undefined;
  /** How a msg / flow / global / jsonata query is read for a message. */
  private input: TypedInput | undefined;
  /** A `json` query with placeholders (`{{msg.x}}`, …): its parsed form, resolved and validated per message. */
  private template: unknown;
  private bindings: Bindings | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    value: string | undefined,
    type: string | undefined,
    private readonly prepare: Prepare<T>,
    private readonly options: PrepareOptions = {},
  ) {
    const t = (type || 'json') as QueryType;
    this.type = t;
    this.value = value ?? '';
    this.configError = typeProblem('queryType', t, QUERY_TYPES, String(type));
    if (this.configError) {
      this.field = 'queryType';
      return;
    }
    if (t !== 'json') {
      this.input = new TypedInput(RED, node, t, t === 'msg' ? this.value || 'payload' : this.value, {
        name: 'query',
        jsonata: {
          invalid: "The query's JSONata expression is not valid",
          failed: "The query's JSONata expression failed",
        },
        rawMsgErrors: true,
      });
      this.field = this.input.field;
      this.configError = this.input.problem;
      return;
    }
    // A json query is no fixed TypedInput value: `prepare` reads its text (naming the place of a syntax error), and its
    // placeholders sit inside the JSON, resolved and validated as a whole for each message.
    this.field = 'query';
    try {
      this.bindings = this.findBindings();
      if (!this.bindings) this.fixed = prepare(this.value.trim() === '' ? undefined : this.value, 'query', options);
    } catch (err) {
      this.configError = err instanceof TbError ? err : new TbConfigError(String(err));
    }
  }

  /** Does the query take values from the message (placeholders)? Then it is resolved for each message. */
  get bound(): boolean {
    return this.bindings !== undefined;
  }

  /**
   * The placeholders of a `json` query, checked at deploy: a message path Node-RED cannot read is a setting
   * problem. Undefined when the text is no JSON object with placeholders (then it is prepared as it is).
   */
  private findBindings(): Bindings | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.value);
    } catch {
      return undefined; // prepare() says what is wrong with the text
    }
    const bindings = findBindings(parsed);
    if (!bindings) return undefined;
    checkRefs(this.RED, bindings.refs, () => "The query's placeholder");
    this.template = parsed;
    return bindings;
  }

  /** The query with this message's values, validated; an error names the binding of a wrong value. */
  private resolveBound(msg: NodeMessage): T | Promise<T> {
    const bindings = this.bindings as Bindings;
    const read = readRefs(
      this.RED,
      this.node,
      bindings.refs,
      msg,
      (ref, err) => new TbInputError(this.field, `Cannot read ${ref.text} for the query: ${err.message}`),
    );
    const finish = (values: Map<string, unknown>): T => {
      const resolved = resolveBindings(this.template, bindings, (ref) => values.get(ref.text), {
        field: this.field,
        isList: isQueryList,
      });
      try {
        return this.prepare(resolved.query, this.field, this.options);
      } catch (err) {
        throw explainBound(err, resolved, this.field);
      }
    };
    return read instanceof Promise ? read.then(finish) : finish(read);
  }

  /** The setting problem found at deploy, if any (for a red-dot status and a log line). */
  get problem(): TbError | undefined {
    return this.configError;
  }

  /** The validated query for this message (synchronous for json and msg, the hot paths). */
  resolve(msg: NodeMessage): T | Promise<T> {
    if (this.configError) throw this.configError;
    if (this.type === 'json') return this.bindings ? this.resolveBound(msg) : (this.fixed as T);
    const read = (this.input as TypedInput).read(msg);
    return read instanceof Promise ? read.then((r) => this.prepareRead(r.value)) : this.prepareRead(read.value);
  }

  /** A query read from the message, the context or JSONata, validated (a JSONata result goes to `prepare` as it is). */
  private prepareRead(input: unknown): T {
    if (input === undefined && this.type !== 'jsonata')
      throw new TbInputError(this.field, `${this.field} must hold the query (it is empty)`);
    return this.prepare(input, this.field, this.options);
  }
}

/**
 * The values a save of tb-attributes or tb-telemetry writes: msg.payload (`valuesFrom` payload, the default), or the
 * rows set in the dialog (`valuesFrom` rows), read for each message with Node-RED's own helpers: placeholders and
 * msg / flow / global / env rows as every other setting reads them, JSONata rows as a TypedInput. With rows,
 * msg.payload is not read for the values. A msg / flow / global / env row is read as the whole placeholder it stands
 * for, not as a TypedInput: all of a message's rows are read at once, and a path through a missing object
 * (payload.a.b without payload.a) is a missing value that refuses the message naming `values.<key>`, as a
 * `{{msg.payload.a.b}}` would.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../errors';
import { TypedInput } from '../node-red/typed-input';
import { checkRefs, readRefs } from '../node-red/value-sources';
import { prepareValueRows, rowField, rowValues, type PreparedRows, type ValuesFrom } from '../settings/value-rows';

/** The settings the rows are read from, as the node read them by its declaration. */
export interface ValueRowsSettings {
  /** One of the node's operations, or msg. */
  operation: string;
  valuesFrom: ValuesFrom;
  values: unknown[];
}

/** The values of one message and whether they are the rows (named `values.<key>`) or msg.payload. */
export interface SaveValues {
  values: unknown;
  fromRows: boolean;
}

export class ValueRows {
  /** A problem with the rows, found at deploy (only when the node may save and takes its values from rows). */
  readonly problem: TbError | undefined;
  private readonly rows: PreparedRows | undefined;
  /** The JSONata rows. */
  private readonly computed: Array<{ key: string; input: TypedInput }> = [];

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    config: ValueRowsSettings,
  ) {
    const op = config.operation;
    // A node that never saves keeps rows left over from an earlier setting without complaint.
    const saves = op === 'save' || op === 'msg';
    try {
      if (config.valuesFrom !== 'rows' || !saves) return;
      const rows = prepareValueRows(config.values);
      for (const leaf of rows.bindings?.leaves ?? []) {
        const refs = leaf.whole ? [leaf.whole] : (leaf.parts ?? []).filter((p) => typeof p !== 'string');
        checkRefs(RED, refs, () => `${rowField(String(leaf.at[0]))}:`);
      }
      for (const { key, expr } of rows.jsonata) {
        const f = rowField(key);
        const input = new TypedInput(RED, node, 'jsonata', expr, {
          name: f,
          jsonata: {
            invalid: `${f}: the JSONata expression is not valid`,
            failed: `${f}: its JSONata expression failed`,
            field: f,
          },
        });
        if (input.problem) throw input.problem;
        this.computed.push({ key, input });
      }
      this.rows = rows;
    } catch (err) {
      this.problem = err instanceof TbError ? err : new TbConfigError(String(err));
    }
  }

  /**
   * The values of a save for this message: the rows, read once for the message whatever the number of entities; else
   * msg.payload.
   */
  async of(msg: NodeMessage): Promise<SaveValues> {
    if (this.problem) throw this.problem;
    const rows = this.rows;
    if (!rows) return { values: msg.payload, fromRows: false };
    const read = readRefs(
      this.RED,
      this.node,
      rows.bindings?.refs ?? [],
      msg,
      (ref, err) => new TbInputError(ref.text, `Cannot read ${ref.text}: ${err.message}`),
    );
    const refs = read instanceof Promise ? await read : read;
    const computed: Record<string, unknown> = {};
    for (const row of this.computed) computed[row.key] = (await row.input.read(msg)).value;
    return { values: rowValues(rows, (ref) => refs.get(ref.text), computed), fromRows: true };
  }
}

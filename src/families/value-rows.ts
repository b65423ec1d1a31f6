/**
 * The values a save of tb-attributes or tb-telemetry writes (issue 18): msg.payload (`valuesFrom` payload, the
 * default), or the rows set in the dialog (`valuesFrom` rows, src/query/value-rows), read for each message with
 * Node-RED's own helpers: placeholders and msg / flow / global / env rows through value-sources (as every other
 * setting reads them), JSONata rows through typed-input. With rows, msg.payload is not read for the values.
 * A msg / flow / global / env row is read as the whole placeholder it stands for (src/query/value-rows), not through
 * typed-input: all of a message's rows are read at once, and a path through a missing object (payload.a.b without
 * payload.a) is a missing value that refuses the message naming `values.<key>`, as a `{{msg.payload.a.b}}` would.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../errors';
import { TypedInput } from '../node-red/typed-input';
import { checkRefs, readRefs } from '../node-red/value-sources';
import { prepareValueRows, rowField, rowValues, valuesFrom, type PreparedRows } from '../settings/value-rows';

export interface ValueRowsDef {
  operation?: string;
  valuesFrom?: string;
  values?: unknown;
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
  /** The JSONata rows (src/nodes/support/typed-input). */
  private readonly computed: Array<{ key: string; input: TypedInput }> = [];

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    config: ValueRowsDef,
  ) {
    const op = config.operation;
    // A node that never saves keeps rows left over from an earlier setting without complaint.
    const saves = op === undefined || op === '' || op === 'save' || op === 'msg';
    try {
      if (valuesFrom(config.valuesFrom) !== 'rows' || !saves) return;
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

  /** The values of a save for this message: the rows, read once for the message whatever the number of entities; else msg.payload. */
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

/**
 * The values a save of tb-attributes or tb-telemetry writes (issue 18): msg.payload (`valuesFrom` payload, the
 * default), or the rows set in the dialog (`valuesFrom` rows, src/query/value-rows), read for each message with
 * Node-RED's own helpers: placeholders and msg / flow / global / env rows through value-sources (as every other
 * setting reads them), JSONata rows prepared once at deploy. With rows, msg.payload is not read for the values.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbError, TbInputError } from '../../errors';
import { prepareValueRows, rowField, rowValues, valuesFrom, type PreparedRows } from '../../query/value-rows';
import { checkRefs, readRefs } from './value-sources';

type JsonataExpr = ReturnType<NodeAPI['util']['prepareJSONataExpression']>;

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
  private readonly exprs = new Map<string, JsonataExpr>();

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
        try {
          this.exprs.set(key, RED.util.prepareJSONataExpression(expr, node));
        } catch (err) {
          throw new TbConfigError(`${rowField(key)}: the JSONata expression is not valid: ${(err as Error).message}`);
        }
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
    const read = readRefs(this.RED, this.node, rows.bindings?.refs ?? [], msg, (ref, err) => new TbInputError(ref.text, `Cannot read ${ref.text}: ${err.message}`));
    const refs = read instanceof Promise ? await read : read;
    const computed: Record<string, unknown> = {};
    for (const [key, expr] of this.exprs) computed[key] = await this.evaluate(key, expr, msg);
    return { values: rowValues(rows, (ref) => refs.get(ref.text), computed), fromRows: true };
  }

  private evaluate(key: string, expr: JsonataExpr, msg: NodeMessage): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.RED.util.evaluateJSONataExpression(expr, msg, (err: Error | null, result: unknown) => {
        if (err) reject(new TbInputError(rowField(key), `${rowField(key)}: its JSONata expression failed: ${err.message}`));
        else resolve(result);
      });
    });
  }
}

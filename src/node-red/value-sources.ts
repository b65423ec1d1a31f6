/**
 * Where a node's value comes from, the Node-RED side of the placeholders (protocol/bindings):
 *
 * - `readRefs`: the values of placeholders (`{{msg.<path>}}`, `{{flow.<key>}}`, `{{global.<key>}}`,
 *   `{{env.<NAME>}}`) for one message, read as Node-RED reads them (RED.util.getMessageProperty, the node's context
 *   with its store conventions, evaluateNodeProperty for env). Used by a bound query (QuerySource) and by the
 *   actions' text settings (BoundSettings), so that both read a placeholder the same way;
 * - `BoundSettings`: the text settings of an action node (a key list, a comment, a method, an alarm type…) with
 *   placeholders, resolved for each message with the same rules as a query (type kept for a whole placeholder,
 *   text interpolated otherwise; a missing value refuses the message, naming the setting and the binding);
 * - `IgnoredWarnings`: the rule "a setting fixed in the dialog wins": a message property of the same name is
 *   ignored, and the node says so once per property (node.warn), so that a leftover from an earlier node is seen.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import { TbConfigError, TbInputError } from '../errors';
import {
  explainBound,
  findBindings,
  resolveBindings,
  type BindingRef,
  type Bindings,
  type BoundLeaf,
  type Resolved,
} from '../protocol/bindings';

/** One placeholder's value for this message: flow and global context through the node's context (any store). */
function readRef(RED: NodeAPI, node: Node, ref: BindingRef, msg: NodeMessage): unknown | Promise<unknown> {
  switch (ref.source) {
    case 'msg':
      try {
        return RED.util.getMessageProperty(msg, ref.path);
      } catch {
        return undefined; // a path through a missing object (payload[0].id of an empty list): missing, not a crash
      }
    case 'env':
      return RED.util.evaluateNodeProperty(ref.path, 'env', node, msg);
    default: {
      const { store, key } = RED.util.parseContextStore(ref.path);
      const context = node.context()[ref.source];
      return new Promise((resolve, reject) => {
        context.get(key, store, (err: Error | undefined, value: unknown) => (err ? reject(err) : resolve(value)));
      });
    }
  }
}

/**
 * The values of `refs` for this message, by `ref.text` (synchronous unless a context store is read). A failed
 * context read becomes `failed(ref, err)`.
 */
export function readRefs(
  RED: NodeAPI,
  node: Node,
  refs: readonly BindingRef[],
  msg: NodeMessage,
  failed: (ref: BindingRef, err: Error) => Error,
): Map<string, unknown> | Promise<Map<string, unknown>> {
  const values = new Map<string, unknown>();
  let pending: Promise<void>[] | undefined;
  for (const ref of refs) {
    const v = readRef(RED, node, ref, msg);
    if (v instanceof Promise) {
      (pending ??= []).push(
        v.then(
          (value) => void values.set(ref.text, value),
          (err: Error) => {
            throw failed(ref, err);
          },
        ),
      );
    } else values.set(ref.text, v);
  }
  return pending ? Promise.all(pending).then(() => values) : values;
}

/** Checks at deploy that each `{{msg.<path>}}` is a path Node-RED can read; throws a TbConfigError naming `where`. */
export function checkRefs(RED: NodeAPI, refs: readonly BindingRef[], where: (ref: BindingRef) => string): void {
  for (const ref of refs) {
    if (ref.source !== 'msg') continue;
    try {
      RED.util.normalisePropertyExpression(ref.path);
    } catch (err) {
      throw new TbConfigError(
        `${where(ref)} {{${ref.text}}} is not a message property Node-RED can read: ${(err as Error).message}`,
      );
    }
  }
}

export type Settings = Record<string, unknown>;

function refsOf(leaf: BoundLeaf): BindingRef[] {
  return leaf.whole ? [leaf.whole] : (leaf.parts ?? []).filter((p): p is BindingRef => typeof p !== 'string');
}

/**
 * Text settings of a node with placeholders. Found once at deploy (`bound` is empty when there are none, and then a
 * message costs nothing); `resolve` gives the settings with this message's values, each error naming the setting.
 */
export class BoundSettings {
  private readonly bindings: Bindings | undefined;
  private readonly template: Settings;
  /** A placeholder Node-RED cannot read, found at deploy. */
  readonly problem: TbConfigError | undefined;

  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
    settings: Settings,
    names: readonly string[],
  ) {
    const template: Settings = {};
    for (const n of names) if (typeof settings[n] === 'string') template[n] = settings[n];
    this.template = template;
    const bindings = findBindings(template);
    try {
      for (const leaf of bindings?.leaves ?? [])
        checkRefs(RED, refsOf(leaf), () => `The placeholder of ${String(leaf.at[0])}`);
      this.bindings = bindings;
    } catch (err) {
      this.problem = err as TbConfigError;
    }
  }

  /** The single placeholder that is the whole of this setting, if it is one (its value keeps its type). */
  whole(name: string): BindingRef | undefined {
    return this.bindings?.leaves.find((l) => l.at[0] === name)?.whole;
  }

  /** Is this setting (in whole or in part) taken from a placeholder? */
  isBound(name: string): boolean {
    return this.bindings?.leaves.some((l) => l.at[0] === name) ?? false;
  }

  /** Does any setting hold a placeholder? */
  get any(): boolean {
    return this.bindings !== undefined;
  }

  /**
   * `settings` with this message's values in place of the placeholders (a copy; the node's settings are never
   * changed), or `settings` itself when none is bound. A missing value refuses the message (TB_INVALID_INPUT).
   */
  resolve<T extends Settings>(settings: T, msg: NodeMessage): Resolved<T> | Promise<Resolved<T>> {
    if (this.problem) throw this.problem;
    const bindings = this.bindings;
    if (!bindings) return { query: settings, values: [] };
    const finish = (values: Map<string, unknown>): Resolved<T> => {
      const r = resolveBindings(this.template, bindings, (ref) => values.get(ref.text), { field: '' });
      return { query: { ...settings, ...r.query }, values: r.values };
    };
    const read = readRefs(
      this.RED,
      this.node,
      bindings.refs,
      msg,
      (ref, err) => new TbInputError(ref.text, `Cannot read ${ref.text}: ${err.message}`),
    );
    return read instanceof Promise ? read.then(finish) : finish(read);
  }

  /** A check's error about a bound setting, saying which binding gave the wrong value. */
  static explain(err: unknown, resolved: Resolved): unknown {
    return explainBound(err, resolved, '');
  }
}

/**
 * "The dialog wins": a message property ignored because the node fixes that setting is told once per node and
 * property (node.warn), never per message.
 */
export class IgnoredWarnings {
  private readonly told = new Set<string>();

  private constructor(private readonly node: Node) {}

  private static readonly byNode = new WeakMap<Node, IgnoredWarnings>();

  /** The node's one list of what it has told (shared by all its settings). */
  static of(node: Node): IgnoredWarnings {
    let w = IgnoredWarnings.byNode.get(node);
    if (!w) {
      w = new IgnoredWarnings(node);
      IgnoredWarnings.byNode.set(node, w);
    }
    return w;
  }

  /** `msg.<prop>` was set and ignored: the node's `setting` is fixed in the dialog. */
  ignored(prop: string, setting: string = prop): void {
    if (this.told.has(prop)) return;
    this.told.add(prop);
    this.node.warn(
      `msg.${prop} is ignored: the node's setting "${setting}" is fixed in its dialog, and a fixed setting wins over ` +
        'the message. To read it from the message, set the field to "from the message" (empty it, choose "from the ' +
        `message", or write {{msg.${prop}}}); said once`,
    );
  }

  /** Warns for `msg.<prop>` when it is set (not undefined or null) and the node's setting is fixed. */
  check(msg: NodeMessage, prop: string, fixed: boolean, setting: string = prop): void {
    if (!fixed) return;
    const v = (msg as Record<string, unknown>)[prop];
    if (v !== undefined && v !== null) this.ignored(prop, setting);
  }
}

/**
 * The query part of the query nodes' dialogs (tb-entity-query, tb-entity-count, tb-alarm-query, tb-subscribe): the
 * query a node runs, and, for the nodes that return rows, how they come out.
 *
 * - the `query` TypedInput (a JSON query, or one taken from msg., flow., global. or JSONata; its type in
 *   `queryType`), with the query builder under it for a JSON query (builder/session.ts);
 * - its validators: a JSON query is checked by the runtime's own validation (builder/validation.ts) for the kind
 *   of query the node's settings take now, with the line and column where the JSON breaks;
 * - `pagedResults`: the settings of a node that finds rows (format, all pages up to a maximum, one message per row)
 *   and their rows in the dialog;
 * - `resultOutput`: *Output to*, the message property a REST query node's result goes to.
 *
 * The template holds `#node-input-query`, `-queryType` and the builder's `<div id="tb-builder">`; the part binds them.
 * Messages come from the node's catalog: `<type>.errors.queryType`, `queryEmpty`, `queryJson` (with __error__).
 */
import type { QueryMode } from '../../query-model/schema';
import { QUERY_TYPES } from '../../settings/query';
import { close, modeChanged, open, resize } from '../builder/session';
import { jsonProblem, validateText } from '../builder/validation';
import type { EditorNode, TypeHelpers, Validator } from './for-type';
import { blank } from './predicates';

export interface QueryPartOptions {
  /** The kind of query the node's settings (as the dialog holds them, else as saved) take. */
  mode(node: EditorNode): QueryMode;
  /** The node's operation (or subscription kind), sent with the builder's preview. */
  operation(node: EditorNode): string;
  /** A live subscription's query (tb-subscribe); a REST query without it. */
  live?: boolean;
}

export function queryPart(E: TypeHelpers, o: QueryPartOptions) {
  const err = (name: string, opts?: Record<string, unknown>) => E.t(`${E.type}.errors.${name}`, opts);
  const options = o.live ? { live: true } : undefined;

  return {
    query: function (v, opt) {
      const qt = E.value(this, 'queryType') || 'json';
      if ((QUERY_TYPES as readonly unknown[]).indexOf(qt) === -1) return err('queryType');
      if (qt === 'json' && blank(v)) return err('queryEmpty');
      const r = RED.validators.typedInput('queryType').call(this, v, opt);
      if (r !== true) return r || err('queryJson', { error: '' });
      if (qt !== 'json') return true;
      // Where the JSON breaks, by line and column of the text.
      const problem = jsonProblem(String(v));
      // The value as the flow holds it (a text, unless a tool wrote something else): the runtime reads it so.
      return problem ? err('queryJson', { error: problem }) : validateText(o.mode(this), v as string, options);
    } as Validator,
    queryType: E.oneOf(QUERY_TYPES, `${E.type}.errors.queryType`),

    /** Makes the query input a TypedInput (msg. defaults to payload) and opens the builder (in oneditprepare). */
    prepare(node: EditorNode): void {
      E.typedInput('query', QUERY_TYPES, 'payload');
      open({
        nodeType: E.type,
        id: node.id as string | undefined,
        query: node.query as string | undefined,
        live: o.live,
        mode: () => o.mode(node),
        operation: () => o.operation(node),
      });
    },
    /** The node's settings changed the kind of query: the builder redraws for it. */
    modeChanged,
    /** oneditsave and oneditcancel: the builder writes the query back and lets go. */
    close,
    /** oneditresize */
    resize,
  };
}

/**
 * The settings of a node that finds rows (tb-entity-query, tb-alarm-query): `format`, `allPages` up to `maxItems`,
 * `split`; their template rows are `.tb-row-find` (and `.tb-row-maxItems`), shown while the node finds.
 */
export function pagedResults(E: TypeHelpers) {
  const type = E.type;
  return {
    validators: {
      format: E.oneOf(['flat', 'raw'], `${type}.errors.format`),
      allPages: E.bool(`${type}.label.allPages`),
      maxItems: E.whole(1, null, `${type}.errors.maxItems`),
      split: E.bool(`${type}.label.split`),
    },
    /** The rows to show (for E.showRows): the settings while the node finds, the maximum with all pages. */
    rows(node: EditorNode, find: boolean): Record<string, unknown> {
      return { '.tb-row-find': find, '.tb-row-maxItems': find && E.value(node, 'allPages') };
    },
    /** The port's label: the other operation's (`other`), else a row per message or the rows in one. */
    outputLabels(other: string) {
      return function (this: EditorNode): string {
        if (this.operation === other) return E.t(`${type}.outputLabel.${other}`);
        return E.t(`${type}.outputLabel.${this.split ? 'split' : 'find'}`);
      };
    },
  };
}

/**
 * *Output to* (`output`) of the REST query nodes: the message property the result goes to, msg.payload unless the
 * user names another (such as msg.entity, which a device-action node reads). A TypedInput of type msg only, as the
 * core nodes' property fields; its template row is marked `data-tb-output`. The runtime reads it with Node-RED's own
 * property paths (src/nodes/support/rest-node.ts outputTo); a message is `<type>.errors.output`.
 */
export function resultOutput(E: TypeHelpers) {
  /** The saved property, when it is not msg.payload. */
  const elsewhere = (node: EditorNode): string | undefined => {
    const v = node.output;
    const path = v === undefined ? '' : String(v).replace(/^msg\./, '');
    return path === '' || path === 'payload' ? undefined : path;
  };
  return {
    validator: function (v, opt) {
      if (v === undefined) return true;
      return !blank(v) && RED.utils.validatePropertyExpression(String(v)) ? true : E.t(`${E.type}.errors.output`);
    } as Validator,
    /** In oneditprepare: a node saved before the setting shows where its result goes, msg.payload. */
    prepare(node: EditorNode): void {
      if (node.output === undefined) E.input('output').val('payload');
      E.input('output').typedInput({ default: 'msg', types: ['msg'] });
    },
    /** A port label that also says where the result goes when that is not msg.payload. */
    labelled(base: (this: EditorNode) => string) {
      return function (this: EditorNode): string {
        const to = elsewhere(this);
        return to ? `${base.call(this)} \u2192 msg.${to}` : base.call(this);
      };
    },
  };
}

/**
 * The settings of the nodes that run a ThingsBoard query (entity query, entity count, alarm query, subscribe),
 * declared once for all of them: the query and where it comes from, how found rows come out, and where a REST
 * node's result goes.
 */
import { RESULT_FORMATS } from '../protocol/format';
import { choice, flag, formatted, text, whole } from './declare';

/** Where a node's query comes from: the JSON of the dialog, a message property, context, or JSONata. */
export const QUERY_TYPES = ['json', 'msg', 'flow', 'global', 'jsonata'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

/** `queryType`: a query built in the dialog unless another source is chosen. */
export const QUERY_TYPE = choice(QUERY_TYPES, 'json');

/**
 * The query and its source. `defaultText` is the query a new node starts with: the neutral query of the node's
 * kind, as the dialog's builder writes it (one line of JSON).
 */
export function querySettings(defaultText: string) {
  return {
    query: formatted('query', defaultText),
    queryType: QUERY_TYPE,
  };
}

/**
 * The settings of a node that finds rows: their format (`flat` and `raw`, and the node's own `formats` besides), every
 * page (up to `maxItems` rows) or one, and one message per row or all in one.
 */
export function pagedResultSettings<F extends string = never>(formats: readonly F[] = []) {
  return {
    format: choice<(typeof RESULT_FORMATS)[number] | F>([...RESULT_FORMATS, ...formats], 'flat'),
    allPages: flag(false),
    maxItems: whole(10000, { min: 1 }),
    split: flag(false),
  };
}

/** *Output to*: the message property a REST query node's result goes to (as Node-RED's TypedInput of type msg). */
export function resultOutputSetting() {
  return text('payload');
}

/**
 * The query of the query nodes (tb-entity-query, tb-entity-count, tb-alarm-query, tb-subscribe), declared once for
 * all of them: the query and where it comes from.
 */
import { choice, formatted } from './declare';

/** Where a node's query comes from: the JSON of the dialog (built or typed), a message property, context, JSONata. */
export const QUERY_TYPES = ['json', 'msg', 'flow', 'global', 'jsonata'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

/** The query (`text`: the one a new node starts with, as the dialog's builder writes it) and its source. */
export function querySettings(text: string) {
  return {
    query: formatted('query', text),
    queryType: choice(QUERY_TYPES, 'json'),
  };
}

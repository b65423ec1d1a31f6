/**
 * The parts of a condition on an entity's value that the nodes watching values declare alike (tb-wait-until,
 * tb-trigger): the kinds of key a condition reads and the operators it compares with. Pure: no I/O, no Node-RED.
 */

/** The kinds of key a condition reads: a time series, an attribute of a scope, or an entity field (name, label…). */
export const CONDITION_KEY_TYPES = [
  'TIME_SERIES',
  'SERVER_ATTRIBUTE',
  'SHARED_ATTRIBUTE',
  'CLIENT_ATTRIBUTE',
  'ENTITY_FIELD',
] as const;
export type ConditionKeyType = (typeof CONDITION_KEY_TYPES)[number];

/**
 * Every operator a condition may have: the comparisons, `in` / `nin` (is one of, none of a list), `changes` (any new
 * value) and `jsonata` (an expression that must become true).
 */
export const CONDITION_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'nin', 'changes', 'jsonata'] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/**
 * The operators of a condition that holds (or not) for as long as its value stays: every one but `changes` (an
 * event, not a state) and `jsonata` (evaluated apart from the compiled conditions).
 */
export const STATE_OPERATORS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in', 'nin'] as const;
export type StateOperator = (typeof STATE_OPERATORS)[number];

/** The operators that compare numbers (a value that is not one never meets them). */
export const ORDER_OPERATORS = ['lt', 'lte', 'gt', 'gte'] as const;

/** How several conditions (or several entities) are joined: every one must hold, or one is enough. */
export const JOIN_MODES = ['all', 'any'] as const;
export type JoinMode = (typeof JOIN_MODES)[number];

/** tb-entity's settings, declared once: the dialog, the runtime and the reference page read them. */
import { choice, connection, declareNode, text, type Values } from '../../settings/declare';
import { concurrencySetting } from '../../settings/options';

/** What the node does with each row: create or update by name (the everyday one), and the rest. */
export const OPERATIONS = [
  'upsert',
  'create',
  'update',
  'get',
  'delete',
  'assign',
  'unassign',
  'getCredentials',
  'setCredentials',
] as const;
export type Operation = (typeof OPERATIONS)[number];

/** The kinds of entity the node manages. */
export const ENTITY_TYPES = ['DEVICE', 'ASSET', 'CUSTOMER', 'ENTITY_VIEW'] as const;

export const TB_ENTITY = declareNode({
  type: 'tb-entity',
  inputs: 1,
  outputs: 1,
  version: 1,
  settings: {
    name: text(),
    connection: connection(),
    operation: choice([...OPERATIONS, 'msg'] as const, 'upsert'),
    entityType: choice(ENTITY_TYPES, 'DEVICE'),
    // Left empty: each row's own profile (or the default profile on create). Not for customers and entity views.
    profile: text('', { fromMessage: 'msg.profile' }),
    // Assign: the customer's title, unless the row names one.
    customer: text('', { fromMessage: 'msg.customer' }),
    concurrency: concurrencySetting(),
  },
});

export type EntitySettings = Values<typeof TB_ENTITY.settings>;

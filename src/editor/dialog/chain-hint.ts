/**
 * The chain hint: a query node whose list goes to msg.payload (its *Output to* left at its default), wired into a node
 * that reads its entities from the message (tb-telemetry, tb-attributes, tb-rpc, tb-wait-until with the entity "from
 * the message"), which looks in msg.entity first. The dialog of either node says so in one line, with a button that
 * sets the query node's *Output to* to msg.entity: in the query's own dialog, its input (saved with Done); in the
 * other node's dialog, the query node itself (an edit of its own, which the editor can undo).
 *
 * Called by every dialog (dialog.ts), after its own oneditprepare has prepared its inputs. The line is
 * `[data-tb-chain-hint]`, its button `[data-tb-chain-fix]`; the texts are the tb-connection catalog's `chain.*`.
 */
import { catalogKey } from '../../settings/declare';
import type { EditorNode, TypeHelpers } from './for-type';

const NS = catalogKey('tb-connection', 'tb-connection.chain.');

function t(key: string, options?: Record<string, unknown>): string {
  return RED._(NS + key, options);
}

/** The query nodes whose result is a list of entities, and the operation that gives something else. */
const QUERY_NODES: Readonly<Record<string, string>> = { 'tb-entity-query': 'keys', 'tb-alarm-query': 'count' };
/** The nodes that read their entities from the message (msg.entity, else msg.topic) when their entity is "auto". */
const READERS = ['tb-telemetry', 'tb-attributes', 'tb-rpc', 'tb-wait-until'];

/** A node of the flow as the editor holds it. */
type FlowNode = EditorNode & { id: string; type: string; changed?: boolean; dirty?: boolean };

/** A setting as the dialog holds it now (for the node being edited), else as saved. */
type Get = (node: FlowNode, prop: string) => unknown;

const saved: Get = (node, prop) => node[prop];

/** Does this query node send a list of entities to msg.payload? */
function listToPayload(node: FlowNode, get: Get): boolean {
  const other = QUERY_NODES[node.type];
  if (other === undefined || get(node, 'operation') === other) return false;
  const to = String(get(node, 'output') ?? '')
    .trim()
    .replace(/^msg\./, '');
  return to === '' || to === 'payload';
}

/** Does this node read its entities from the message? */
function readsEntity(node: FlowNode, get: Get): boolean {
  if (READERS.indexOf(node.type) === -1) return false;
  // A wait for an alarm without a type reads the alarm from msg.payload, not an entity.
  if (get(node, 'waitFor') === 'alarm' && String(get(node, 'alarmType') ?? '').trim() === '') return false;
  const source = get(node, 'targetType');
  return source === undefined || source === '' || source === 'auto';
}

/** The node's label as the canvas shows it. */
function labelOf(node: FlowNode): string {
  return RED.utils.getNodeLabel(node, node.type);
}

/** The nodes wired to `node`'s output (`after`), or into its input. */
function wired(node: FlowNode, after: boolean): FlowNode[] {
  const links = RED.nodes.filterLinks(after ? { source: node } : { target: node });
  return links.map((l) => (after ? l.target : l.source) as FlowNode);
}

/** Sets a query node's *Output to* to msg.entity from another dialog: an edit of its own, which undo takes back. */
function sendToEntity(query: FlowNode): void {
  const wasDirty = RED.nodes.dirty();
  RED.history.push({
    t: 'edit',
    node: query,
    changes: { output: query.output },
    dirty: wasDirty,
    changed: query.changed,
  });
  query.output = 'entity';
  query.changed = true;
  query.dirty = true;
  RED.editor.validateNode(query);
  RED.nodes.dirty(true);
  RED.view.redraw(true);
}

/**
 * Shows, under the row of `anchor` (the query's *Output to*, or the entity of the node that reads it), the line that
 * says a query's list goes to msg.payload while the node after it reads msg.entity, and the button that fixes it;
 * and keeps it in step with the dialog's settings.
 */
export function chainHint(E: TypeHelpers, node: EditorNode): void {
  const self = node as FlowNode;
  const query = QUERY_NODES[self.type] !== undefined;
  if (!query && READERS.indexOf(self.type) === -1) return;
  // The node being edited: its settings as the dialog holds them now.
  const live: Get = (n, prop) => {
    if (n !== self) return saved(n, prop);
    if (prop === 'targetType') {
      const target = E.input('target');
      return target.length ? target.typedInput('type') : saved(n, prop);
    }
    if (prop === 'output') {
      const output = E.input('output');
      return output.length ? output.typedInput('value') : saved(n, prop);
    }
    return E.value(n, prop);
  };
  const anchor = E.input(query ? 'output' : 'target').closest('.form-row');
  if (!anchor.length) return;
  const line = $('<div class="form-tips" data-tb-chain-hint style="margin-bottom: 12px;">').hide();
  const text = $('<span>').appendTo(line);
  const fix = $('<button type="button" class="red-ui-button red-ui-button-small" data-tb-chain-fix>')
    .text(t('fix'))
    .css('margin-left', '8px')
    .appendTo(line);
  line.insertAfter(anchor);

  let other: FlowNode | undefined;
  const update = (): void => {
    other = undefined;
    if (query) {
      if (listToPayload(self, live)) other = wired(self, true).find((n) => readsEntity(n, saved));
    } else if (readsEntity(self, live)) {
      other = wired(self, false).find((n) => listToPayload(n, saved));
    }
    if (!other) {
      line.hide();
      return;
    }
    text.text(t(query ? 'next' : 'previous', { node: `"${labelOf(other)}"` }));
    line.show();
  };
  fix.on('click', (ev) => {
    ev.preventDefault();
    if (query) {
      E.input('output').typedInput('value', 'entity');
      E.input('output').trigger('change');
    } else if (other) {
      sendToEntity(other);
    }
    update();
  });
  for (const prop of query ? ['output', 'operation'] : ['target', 'targetType', 'waitFor', 'alarmType'])
    E.input(prop).on('change', update);
  update();
}

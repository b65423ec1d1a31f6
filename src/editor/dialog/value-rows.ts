/**
 * The values of a save set in the dialog (tb-attributes, tb-telemetry): the `valuesFrom` select (msg.payload, or set
 * here; declared with the node's settings) and, when set here, an editable list of rows: a key, and a TypedInput for
 * the value and its type (fixed text, number, boolean or JSON, a msg. / flow. / global. / env. property, JSONata;
 * text may hold `{{msg.…}}` placeholders). The node keeps them in `values`, `[{ key, type, value }]`, read by the
 * runtime's own check, which also gives the dialog its messages.
 *
 * The template holds `#node-input-valuesFrom` (a select) and `#node-input-values`, the element the list is built in.
 * Node-RED reads every property's `#node-input-<prop>` with jQuery's .val() after oneditsave (and on each change, to
 * validate it), and .val() gives an element's `value` as it is: so that element's `value` is the rows themselves,
 * kept up to date by the list, and Node-RED saves and checks them as it does any other property.
 */
import { prepareValueRows, VALUE_TYPES, type ValueRow } from '../../settings/value-rows';
import type { EditorNode, TypeHelpers, Validator } from './for-type';

export interface ValueRowsOptions {
  /** Does the node, as the dialog holds it now, save (the operation is save, or set by the message)? */
  saves(node: EditorNode): boolean;
}

/** The rows element's value: what Node-RED reads with .val(). */
type RowsElement = HTMLElement & { value?: unknown };

export function valueRows(E: TypeHelpers, o: ValueRowsOptions) {
  const type = E.type;
  const holder = () => E.input('values');
  const list = () => holder().find('[data-tb-value-list]');
  /** Are the values taken from the rows (the live choice while the dialog is open)? */
  const fromRows = (node: EditorNode) => E.value(node, 'valuesFrom') === 'rows';

  /** The rows as the list holds them now, in their order. */
  function read(): ValueRow[] {
    const rows: ValueRow[] = [];
    list()
      .children('li')
      .not('.red-ui-editableList-item-deleting')
      .find('[data-tb-value-row]')
      .each(function () {
        const row = $(this);
        const value = row.find('input[data-tb-value-value]');
        rows.push({
          key: String(row.find('input[data-tb-value-key]').val() ?? '').trim(),
          type: value.typedInput('type') as ValueRow['type'],
          value: value.typedInput('value'),
        });
      });
    return rows;
  }

  /** Keeps the element's value (what Node-RED saves and validates) and the key marks in step with the list. */
  function changed(): void {
    const rows = read();
    (holder()[0] as RowsElement).value = rows;
    // An empty list draws as a thin bar: a line says there is nothing yet, above the button that adds a value.
    holder()
      .find('.red-ui-editableList-border')
      .toggle(rows.length > 0);
    holder()
      .find('[data-tb-value-empty]')
      .toggle(rows.length === 0);
    const count = new Map<string, number>();
    for (const r of rows) count.set(r.key, (count.get(r.key) ?? 0) + 1);
    list()
      .find('input[data-tb-value-key]')
      .each(function () {
        const k = String($(this).val() ?? '').trim();
        $(this).toggleClass('input-error', k === '' || (count.get(k) ?? 0) > 1);
      });
    holder().trigger('change');
  }

  return {
    /**
     * The rows, in the runtime's words, when the node saves them (rows left from another choice are kept,
     * unchecked).
     */
    values: function (v, opt) {
      if (v === undefined || !fromRows(this) || !o.saves(this)) return true;
      try {
        prepareValueRows(v);
        return true;
      } catch (err) {
        return (err as Error).message;
      }
    } as Validator,

    /** Builds the list from the node's rows (in oneditprepare). */
    prepare(node: EditorNode): void {
      $('<div data-tb-value-empty style="font-style: italic; opacity: 0.75; margin: 4px 0 6px;"></div>')
        .text(E.t(`${type}.placeholder.noValues`))
        .appendTo(holder());
      const ol = $('<ol data-tb-value-list></ol>').appendTo(holder());
      ol.editableList({
        addItem(row: JQuery, _index: number, data: Partial<ValueRow>) {
          row.attr('data-tb-value-row', '').css({ display: 'flex', gap: '6px', alignItems: 'center' });
          $('<input type="text" data-tb-value-key style="width: 35%;">')
            .attr('placeholder', E.t(`${type}.placeholder.valueKey`))
            .val(data.key ?? '')
            .on('change keyup paste', changed)
            .appendTo(row);
          const value = $('<input type="text" data-tb-value-value style="width: 100%;">').appendTo(
            $('<div style="flex: 1;"></div>').appendTo(row),
          );
          value.typedInput({ default: 'str', types: VALUE_TYPES.slice() });
          value.typedInput(
            'type',
            data.type && (VALUE_TYPES as readonly string[]).includes(data.type) ? data.type : 'str',
          );
          value.typedInput('value', data.value === undefined || data.value === null ? '' : String(data.value));
          value.on('change', changed);
          changed();
        },
        removeItem: changed,
        sortItems: changed,
        sortable: true,
        removable: true,
        height: 'auto',
        addButton: E.t(`${type}.label.addValue`),
      });
      const saved = Array.isArray(node.values) ? (node.values as Partial<ValueRow>[]) : [];
      for (const r of saved) ol.editableList('addItem', r);
      changed();
    },

    fromRows,
  };
}

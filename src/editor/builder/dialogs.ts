/**
 * The small server-backed helpers of the dialogs other than the query builder's: the connection test, the only
 * connection for a new node, entity pickers bound to a node's own input, suggestions for a TypedInput's text
 * (alarm types, users) and a Trendz view link. Each keeps the node's own inputs as the truth.
 */
import { button, ensureStyle, t } from './dom';
import { typeLabel } from './entity-filter';
import { Lookups, request } from './lookups';
import { entityPicker, suggest, type Suggest } from './widgets';

/** The node's one connection, when there is exactly one (a new node preselects it). */
function onlyConnection(): string | undefined {
  const ids: string[] = [];
  RED.nodes.eachConfig((n) => {
    if (n.type === 'tb-connection' && !n.d) ids.push(n.id);
  });
  return ids.length === 1 ? ids[0] : undefined;
}

/**
 * A new node (dropped from the palette, or pasted without one) gets the connection when exactly one exists:
 * called from the node definitions' `onadd`, with the node as `this`.
 */
export function addConnection(this: { connection?: string }): void {
  if (this.connection) return;
  const only = onlyConnection();
  if (only) this.connection = only;
}

interface TestAnswer {
  ok: boolean;
  user?: string;
  authority?: string;
  serverVersion?: string | null;
  code?: string;
  message?: string;
}

/** The "Test connection" button of the connection dialog: runs on the deployed connection. */
export function connectionTest(container: string, id: () => string, changed: () => boolean): void {
  ensureStyle();
  const box = $(container).empty();
  const btn = button('test', t('test.button'), 'fa-plug').appendTo(box);
  const result = $('<span class="tb-b-test-result" data-tb-test-result>').css('margin-left', '8px').appendTo(box);
  btn.on('click', () => {
    result.attr('data-tb-test-result', 'running').removeClass('tb-b-error').text(t('test.running'));
    void request<TestAnswer>('POST', `tb-connection/${encodeURIComponent(id())}/test`, {}).then((a) => {
      if (!a.ok) {
        result.attr('data-tb-test-result', 'error').addClass('tb-b-error');
        result.text(
          a.error.status === 404 || a.error.code === 'TB_NOT_DEPLOYED'
            ? t('test.deployFirst')
            : `${a.error.message} (${a.error.code})`,
        );
        return;
      }
      const v = a.value;
      if (v.ok) {
        result.attr('data-tb-test-result', 'ok').removeClass('tb-b-error');
        const text = t('test.ok', {
          user: v.user ?? '',
          authority: v.authority ?? '',
          version: v.serverVersion ?? t('test.versionUnknown'),
        });
        result.text(changed() ? `${text} ${t('test.unsaved')}` : text);
      } else {
        result
          .attr('data-tb-test-result', 'error')
          .addClass('tb-b-error')
          .text(`${v.message ?? ''} (${v.code ?? ''})`);
      }
    });
  });
}

/** The entity picker of tb-alarm-status: shows names, keeps the id in the node's own text input. */
export function entityInput(o: { idInput: string; typeInput: string; connection: () => string | undefined }): void {
  ensureStyle();
  const idInput = $(o.idInput);
  const lookups = new Lookups(o.connection);
  idInput.hide();
  const picker = entityPicker({
    field: 'originatorId',
    entityType: () => String($(o.typeInput).val() || 'DEVICE'),
    id: String(idInput.val() ?? '').trim(),
    entities: (et, s) => lookups.entities(et, s),
    names: (et, ids) => lookups.names(et, ids),
    change: (id) => idInput.val(id ?? '').trigger('change'),
  });
  picker.addClass('tb-b').css({ display: 'inline-flex', width: '70%' });
  picker.insertAfter(idInput);
}

/** The view id in a pasted Trendz view link (the UUID at its end), or the text itself. */
export function viewIdFromLink(text: string): string {
  const all = String(text).match(/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g);
  return all && all.length ? all[all.length - 1] : String(text).trim();
}

/** The visible text box of a TypedInput (the original input is hidden behind it). */
function typedBox(input: JQuery): JQuery {
  return input.nextAll('.red-ui-typedInput-container').first().find('input.red-ui-typedInput-input');
}

/**
 * Suggestions for a TypedInput's text while its type is one of `types` (its own widgets come and go with the
 * type, so the suggestions are attached again on every change of type).
 */
function suggestWhile(input: JQuery, types: readonly string[], source: Suggest): void {
  const attach = () => {
    const box = typedBox(input);
    if (!types.includes(input.typedInput('type')) || box.hasClass('red-ui-autoComplete')) return;
    suggest(box, source);
  };
  input.on('change', attach);
  attach();
}

/** Alarm types of the server as suggestions for a text input (or a TypedInput of type str). */
export function alarmTypeInput(selector: string, connection: () => string | undefined): void {
  const lookups = new Lookups(connection);
  const source: Suggest = async (text) => {
    const types = await lookups.alarmTypes(text);
    return types ? types.map((v) => ({ value: v, label: v })) : null;
  };
  const input = $(selector);
  if (input.nextAll('.red-ui-typedInput-container').length) suggestWhile(input, ['str'], source);
  else suggest(input, source);
}

/** Users (by e-mail) as suggestions for a TypedInput of type str: the e-mail is what the node resolves. */
export function userInput(selector: string, connection: () => string | undefined): void {
  const lookups = new Lookups(connection);
  suggestWhile($(selector), ['str'], async (text) => {
    const users = await lookups.entities('USER', text);
    return users ? users.map((u) => ({ value: u.name, label: u.name })) : null;
  });
}

/**
 * An entity picker for a TypedInput that holds `{ "entityType", "id" }` as JSON: shown while its type is `o.type`
 * (default json, where the JSON stays editable by hand; the device actions give the picker a type of its own), it
 * writes the chosen entity into the input, and shows the input's entity each time it appears.
 */
export function entityJsonInput(o: {
  input: string;
  connection: () => string | undefined;
  types: readonly string[];
  field: string;
  type?: string;
  placeholder?: string;
}): void {
  ensureStyle();
  const input = $(o.input);
  const lookups = new Lookups(o.connection);
  // under the TypedInput and as wide (70 % of the form row, as Node-RED sizes its inputs)
  const row = $('<div class="tb-b tb-b-entity-json">').css({
    margin: '4px 0 0 104px',
    width: '70%',
    display: 'flex',
    gap: '4px',
    alignItems: 'center',
  });
  row.insertAfter(input.nextAll('.red-ui-typedInput-container').first());
  const current = (): { entityType?: string; id?: string } => {
    try {
      const v = JSON.parse(String(input.typedInput('value') || '{}')) as unknown;
      return v && typeof v === 'object' ? (v as { entityType?: string; id?: string }) : {};
    } catch {
      return {};
    }
  };
  const draw = () => {
    row.empty();
    const now = current();
    const typeSelect = $('<select class="tb-b-select">').attr('data-tb-field', `${o.field}.entityType`).appendTo(row);
    for (const ty of o.types) $('<option>').val(ty).text(typeLabel(ty)).appendTo(typeSelect);
    typeSelect.val(now.entityType && o.types.includes(now.entityType) ? now.entityType : o.types[0]);
    const write = (id: string | undefined) => {
      input.typedInput('value', JSON.stringify({ entityType: String(typeSelect.val()), id: id ?? '' }));
    };
    typeSelect.on('change', () => write(current().id));
    row.append(
      entityPicker({
        field: `${o.field}.id`,
        entityType: () => String(typeSelect.val()),
        id: now.id ?? '',
        entities: (et, s) => lookups.entities(et, s),
        names: (et, ids) => lookups.names(et, ids),
        change: (id) => write(id),
        placeholder: o.placeholder,
      }),
    );
  };
  const type = o.type ?? 'json';
  let shown = false;
  const toggle = () => {
    const on = input.typedInput('type') === type;
    row.toggle(on);
    if (on && !shown) draw();
    shown = on;
  };
  input.on('change', toggle);
  toggle();
}

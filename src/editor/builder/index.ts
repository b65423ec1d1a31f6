/**
 * `window.TbBuilder`: the dialog helpers of node-red-contrib-thingsboard-query that need more than a few
 * lines — the query builder, and the small server-backed helpers of the other dialogs (connection test,
 * entity picker, view link). Loaded by every node's html from resources/ (built by scripts/bundle-editor.js).
 */
import { compactQuery, parseJsonText, shortJsonMessage } from '../../query/json-text';
import { defaultQuery, type QueryMode } from '../../query/schema';
import { attach, type Builder } from './builder';
import { button, ensureStyle, t } from './dom';
import { Lookups, request } from './lookups';
import { validateText } from './validation';
import { entityPicker, isUuid } from './widgets';

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
function addConnection(this: { connection?: string }): void {
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
function connectionTest(container: string, id: () => string, changed: () => boolean): void {
  ensureStyle();
  const box = $(container).empty();
  const btn = button('test', t('test.button'), 'fa-plug').appendTo(box);
  const result = $('<span class="tb-b-test-result" data-tb-test-result>').css('margin-left', '8px').appendTo(box);
  btn.on('click', () => {
    result.attr('data-tb-test-result', 'running').removeClass('tb-b-error').text(t('test.running'));
    void request<TestAnswer>('POST', `tb-connection/${encodeURIComponent(id())}/test`, {}).then((a) => {
      if (!a.ok) {
        result.attr('data-tb-test-result', 'error').addClass('tb-b-error');
        result.text(a.error.status === 404 || a.error.code === 'TB_NOT_DEPLOYED' ? t('test.deployFirst') : `${a.error.message} (${a.error.code})`);
        return;
      }
      const v = a.value;
      if (v.ok) {
        result.attr('data-tb-test-result', 'ok').removeClass('tb-b-error');
        const text = t('test.ok', { user: v.user ?? '', authority: v.authority ?? '', version: v.serverVersion ?? t('test.versionUnknown') });
        result.text(changed() ? `${text} ${t('test.unsaved')}` : text);
      } else {
        result.attr('data-tb-test-result', 'error').addClass('tb-b-error').text(`${v.message ?? ''} (${v.code ?? ''})`);
      }
    });
  });
}

/** The entity picker of tb-alarm-status: shows names, keeps the id in the node's own text input. */
function entityInput(o: { idInput: string; typeInput: string; connection: () => string | undefined }): void {
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
function viewIdFromLink(text: string): string {
  const all = String(text).match(/[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/g);
  return all && all.length ? all[all.length - 1] : String(text).trim();
}

/** The builder of the dialog that is open (one query dialog at a time). */
let current: Builder | undefined;

/**
 * Opens the builder in a query node's dialog: attaches the builder to `#node-input-query` (already a TypedInput) in the dialog's `#tb-builder` div.
 */
function open(o: { nodeType: string; query?: string; mode(): QueryMode; operation(): string; live?: boolean }): Builder {
  close();
  current = attach({
    nodeType: o.nodeType,
    input: '#node-input-query',
    container: '#tb-builder',
    mode: o.mode,
    operation: o.operation,
    connection: () => String($('#node-input-connection').val() ?? '') || undefined,
    live: o.live,
    text: o.query,
  });
  return current;
}

/** Writes the query back and releases the builder (oneditsave / oneditcancel). */
function close(): void {
  current?.close();
  current = undefined;
}

/** Where a JSON text breaks ("Unexpected token … (line 3, column 7)"), or undefined when it parses. */
function jsonProblem(text: string): string | undefined {
  const p = parseJsonText(String(text));
  return p.ok ? undefined : `${shortJsonMessage(p.message)} ${t('lineColumn', { line: p.line, column: p.column })}`;
}

const api = {
  jsonProblem,
  attach,
  open,
  close,
  resize: () => current?.resize(),
  modeChanged: () => current?.modeChanged(),
  validateText: (mode: QueryMode, text: string) => validateText(mode, text),
  defaultText: (mode: QueryMode) => compactQuery(defaultQuery(mode)),
  addConnection,
  connectionTest,
  entityInput,
  viewIdFromLink,
  isUuid,
};

declare global {
  interface Window {
    TbBuilder?: typeof api;
  }
}

if (!window.TbBuilder) window.TbBuilder = api;

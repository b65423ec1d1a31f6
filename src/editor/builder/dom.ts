/**
 * Small DOM helpers of the query builder: translated texts, element factories with the `data-tb-*` hooks the
 * browser tests use, and the stylesheet (injected once per page).
 */
import { catalogKey } from '../../settings/declare';

const NS = catalogKey('tb-connection', 'tb-connection.builder.');

/** A text of the builder's catalog (in the tb-connection catalog, under `builder`). */
export function t(key: string, options?: Record<string, unknown>): string {
  return RED._(NS + key, options);
}

/** A path as the `data-tb-field` hook writes it: `keyFilters.0.predicate.operation`. */
export function pathText(path: ReadonlyArray<string | number>): string {
  return path.join('.');
}

export function div(cls: string, ...children: Array<JQuery | string>): JQuery {
  const d = $('<div>').addClass(cls);
  for (const c of children) d.append(typeof c === 'string' ? $('<span>').text(c) : c);
  return d;
}

/** A labelled row: `<div class="tb-b-row"><label>…</label> controls…</div>`. */
export function row(label: string, ...controls: JQuery[]): JQuery {
  const r = $('<div class="tb-b-row">');
  $('<label class="tb-b-label">').text(label).appendTo(r);
  const c = $('<div class="tb-b-controls">').appendTo(r);
  for (const x of controls) c.append(x);
  return r;
}

export function textInput(field: string, value: unknown, placeholder?: string): JQuery {
  const i = $('<input type="text" class="tb-b-text">').attr('data-tb-field', field);
  i.val(value === undefined || value === null ? '' : String(value));
  if (placeholder) i.attr('placeholder', placeholder);
  return i;
}

export function select(field: string, options: ReadonlyArray<{ value: string; label: string }>, value: string): JQuery {
  const s = $('<select class="tb-b-select">').attr('data-tb-field', field);
  let found = false;
  for (const o of options) {
    $('<option>').val(o.value).text(o.label).appendTo(s);
    if (o.value === value) found = true;
  }
  // A value the list does not know is shown as it is (never silently replaced).
  if (!found && value !== '') $('<option>').val(value).text(value).appendTo(s);
  s.val(value);
  return s;
}

export function checkbox(field: string, checked: boolean, label: string, value?: string): JQuery {
  const l = $('<label class="tb-b-check">');
  const c = $('<input type="checkbox">').attr('data-tb-field', field).prop('checked', checked).appendTo(l);
  if (value !== undefined) c.attr('data-tb-value', value);
  $('<span>').text(label).appendTo(l);
  return l;
}

export function button(action: string, label: string, icon?: string): JQuery {
  const b = $('<button type="button" class="red-ui-button red-ui-button-small tb-b-button">').attr(
    'data-tb-action',
    action,
  );
  if (icon) $('<i>').addClass(`fa ${icon}`).appendTo(b);
  $('<span>').text(label).appendTo(b);
  return b;
}

export function removeButton(action: string, title: string): JQuery {
  return $('<button type="button" class="red-ui-button red-ui-button-small tb-b-remove">')
    .attr('data-tb-action', action)
    .attr('title', title)
    .append('<i class="fa fa-times"></i>');
}

/** An integer from a text box: a number when it reads as one, `undefined` when empty, else the text as typed. */
export function intValue(text: string): number | string | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  return /^-?\d+$/.test(s) ? Number(s) : s;
}

/** A number from a text box: a number when it reads as one, `undefined` when empty, else the text as typed. */
export function numberValue(text: string): number | string | undefined {
  const s = text.trim();
  if (s === '') return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : s;
}

/** `datetime-local` text in the browser's time zone <-> epoch ms. */
export function toLocalInput(ms: unknown): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) return '';
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function fromLocalInput(text: string): number | undefined {
  if (!text) return undefined;
  const ms = new Date(text).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

const CSS = `
.tb-b { margin: 4px 0 12px 0; }
.tb-b-bar { display: flex; align-items: center; gap: 6px; margin-bottom: 6px; }
.tb-b-bar .tb-b-views { display: inline-flex; }
.tb-b-bar .tb-b-views .red-ui-button.selected { background: var(--red-ui-secondary-background-selected, #eee); font-weight: bold; }
.tb-b-summary { font-style: italic; color: var(--red-ui-secondary-text-color, #555); margin: 4px 0; }
.tb-b-held { font-size: 0.9em; color: var(--red-ui-secondary-text-color, #777); margin: 2px 0 6px 0; }
.tb-b-held code { font-size: 0.95em; }
.tb-b-error { color: var(--red-ui-text-color-error, #d6615f); margin: 4px 0; white-space: pre-wrap; }
.tb-b-hint { color: var(--red-ui-secondary-text-color, #777); font-size: 0.9em; margin: 2px 0; }
.tb-b-controls > .tb-b-hint { flex-basis: 100%; }
.tb-b-section { border: 1px solid var(--red-ui-secondary-border-color, #ddd); border-radius: 4px; padding: 6px 8px; margin: 6px 0; }
.tb-b-section > .tb-b-title { font-weight: bold; margin-bottom: 4px; }
.tb-b-row { display: flex; align-items: flex-start; margin: 4px 0; }
.tb-b-row > .tb-b-label { width: 120px; min-width: 120px; padding-top: 6px; margin: 0; }
.tb-b-controls { flex: 1; display: flex; flex-wrap: wrap; align-items: center; gap: 4px; min-width: 0; }
.tb-b input.tb-b-text, .tb-b select.tb-b-select { width: auto; min-width: 80px; max-width: 100%; margin: 0; }
.tb-b input.tb-b-wide { flex: 1; min-width: 160px; }
.tb-b input.tb-b-num { width: 90px; }
.tb-b .tb-b-check { display: inline-flex; align-items: center; gap: 3px; width: auto; margin: 0 8px 0 0; }
.tb-b .tb-b-check input { width: auto; margin: 0; }
.tb-b-invalid { border-color: var(--red-ui-form-input-border-error-color, #d6615f) !important; }
.tb-b-chips { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; flex: 1; min-width: 0; }
.tb-b-chip { display: inline-flex; align-items: center; gap: 4px; padding: 1px 6px; border-radius: 10px;
  background: var(--red-ui-secondary-background, #f3f3f3); border: 1px solid var(--red-ui-secondary-border-color, #ccc); }
.tb-b-chip.tb-b-unknown { border-color: #e8a33a; background: #fff6e5; }
.tb-b-chip .tb-b-chip-type { font-size: 0.8em; color: var(--red-ui-secondary-text-color, #777); }
.tb-b-chip a { cursor: pointer; color: inherit; }
.tb-b-chips input.tb-b-text { min-width: 120px; flex: 1; }
.tb-b-unknown-input { border-color: #e8a33a !important; }
.tb-b-kf { border-left: 3px solid var(--red-ui-secondary-border-color, #ccc); padding: 4px 0 4px 8px; margin: 6px 0; }
.tb-b-group { border: 1px dashed var(--red-ui-secondary-border-color, #bbb); border-radius: 4px; padding: 4px 6px; margin: 4px 0; }
.tb-b-pred { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin: 3px 0; }
.tb-b-actions { display: flex; gap: 6px; margin-top: 4px; }
.tb-b .tb-b-button i { margin-right: 5px; }
.tb-b-preview-wrap { margin-top: 8px; }
.tb-b-json { height: 300px; min-height: 200px; }
.tb-b-preview { margin-top: 6px; max-height: 260px; overflow: auto; }
.tb-b-preview table { border-collapse: collapse; font-size: 0.9em; }
.tb-b-preview th, .tb-b-preview td { border: 1px solid var(--red-ui-secondary-border-color, #ddd); padding: 2px 6px; text-align: left;
  max-width: 220px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tb-b-preview .tb-b-count { font-size: 1.4em; font-weight: bold; }
/* an id (a UUID) wraps within its cell rather than being cut; a ts cell has a line per key */
.tb-b-preview td[data-tb-col="id"] { white-space: normal; overflow-wrap: anywhere; min-width: 120px; }
.tb-b-preview td.tb-b-ts { white-space: nowrap; max-width: none; }
/* an answer to a query the dialog no longer holds */
.tb-b-preview.tb-b-stale { opacity: 0.45; }
.tb-b-stale-note { font-style: italic; color: var(--red-ui-text-color-warning, #b07b00); }
.tb-b-sub { margin-left: 16px; }
/* an entity picker: the name box, the entity's id under it, wrapped within the row rather than past its edge */
.tb-b-entity { display: inline-flex; flex-direction: column; min-width: 0; max-width: 100%; }
.tb-b-entity-id { font-family: monospace; font-size: 0.85em; color: var(--red-ui-secondary-text-color, #777); overflow-wrap: anywhere; }
.tb-b-entity-json > .tb-b-entity { flex: 1; }
.tb-query-builder-on .red-ui-typedInput-input-wrap, .tb-query-builder-on .red-ui-typedInput-option-expand { display: none !important; }
.red-ui-typedInput-container.tb-query-builder-on { width: auto !important; }
.tb-b-bindable { display: inline-flex; align-items: center; gap: 4px; flex-wrap: wrap; min-width: 0; }
.tb-b-bindable.tb-b-bindable-wide { flex: 1; }
.tb-b-bindable.tb-b-bindable-wide > .tb-b-wide, .tb-b-bindable.tb-b-bindable-wide > .tb-b-chips, .tb-b-bindable.tb-b-bindable-wide > .tb-b-entity { flex: 1; }
.tb-b .tb-b-bind { padding: 0 6px; opacity: 0.75; }
.tb-b .tb-b-bind:hover { opacity: 1; }
.tb-b-bound { display: inline-flex; align-items: center; gap: 4px; padding: 1px 6px 1px 8px; border-radius: 12px;
  background: #e3f0fa; border: 1px solid #6aa9d8; color: #1f4f73; }
.tb-b .tb-b-bound select.tb-b-bound-source { width: auto; min-width: 0; height: 24px; padding: 0 2px; margin: 0; font-family: monospace; }
.tb-b .tb-b-bound input.tb-b-bound-path { width: 150px; height: 24px; margin: 0; font-family: monospace; }
.tb-b-bound a { cursor: pointer; color: inherit; }
.tb-b-bound-needs { font-size: 0.85em; font-style: italic; color: var(--red-ui-secondary-text-color, #777); }
.tb-b-chip.tb-b-chip-bound { background: #e3f0fa; border-color: #6aa9d8; color: #1f4f73; font-family: monospace; }
.tb-b-try { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; margin: 4px 0; }
.tb-b-try-one { display: inline-flex; align-items: center; gap: 4px; }
.tb-b .tb-b-try-one select { width: auto; min-width: 0; margin: 0; }
.tb-b .tb-b-try-one input { width: 140px; margin: 0; }
.tb-b-source-hint { margin-left: 8px; color: var(--red-ui-secondary-text-color, #777); font-style: italic; }
`;

let styled = false;

/** Adds the builder's stylesheet to the page (once). */
export function ensureStyle(): void {
  if (styled || document.getElementById('tb-builder-style')) {
    styled = true;
    return;
  }
  $('<style id="tb-builder-style">').text(CSS).appendTo('head');
  styled = true;
}

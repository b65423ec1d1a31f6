/**
 * The preview: runs the query once on the server through the deployed connection (never subscribing) and
 * shows the first rows as a small table (flat form), the count, the keys, or the error text.
 */
import { entityTypeName } from '../../query-model/schema';
import { tryQuery, tryRefs, type TryProblem, type TryValue } from './bound';
import { button, t } from './dom';
import type { Answer, Lookups, PreviewAnswer } from './lookups';

const MAX_ROWS = 20;
const MAX_COLUMNS = 12;

export interface PreviewRequest {
  node: string;
  operation: string;
  query: unknown;
  /** The connection it runs on: a preview answered on another one answers another question. */
  connection?: string;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Columns a person looks at first; the ids and the less telling times and flags come last. */
const FIRST = [
  'name',
  'originatorName',
  'label',
  'originatorLabel',
  'type',
  'severity',
  'status',
  'createdTime',
  'assignee',
];
const LAST = [
  'id',
  'entityType',
  'tenantId',
  'customerId',
  'assigneeId',
  'startTs',
  'endTs',
  'ackTs',
  'clearTs',
  'assignTs',
  'acknowledged',
  'cleared',
  'originator',
  'originatorDisplayName',
  'details',
  'propagate',
  'propagateToOwner',
  'propagateToTenant',
  'propagateRelationTypes',
  'entity',
  'ts',
];

function rank(key: string): number {
  const f = FIRST.indexOf(key);
  if (f >= 0) return f;
  const l = LAST.indexOf(key);
  return l >= 0 ? 1000 + l : 100;
}

/** A time as the person reads it: the browser's local date and time. */
function localTime(ms: number): string {
  return new Date(ms).toLocaleString();
}

/**
 * A flat row's `ts` (key -> ms of its value): one "key: time" line per key, the raw ms in the title; 0 is a key
 * with no value, and a row of entity fields alone has none. Anything else is shown as JSON.
 */
function tsCell(td: JQuery, v: unknown): void {
  const entries =
    v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v as Record<string, unknown>) : undefined;
  if (!entries || !entries.every(([, ms]) => typeof ms === 'number')) {
    const text = cell(v);
    td.text(text).attr('title', text);
    return;
  }
  td.addClass('tb-b-ts');
  for (const [k, ms] of entries as Array<[string, number]>)
    $('<div>')
      .text(`${k}: ${ms > 0 ? localTime(ms) : '-'}`)
      .appendTo(td);
  td.attr('title', entries.map(([k, ms]) => `${k}: ${String(ms)}`).join('\n'));
}

function table(rows: unknown[]): JQuery {
  const keys: string[] = [];
  for (const r of rows.slice(0, MAX_ROWS)) {
    if (r && typeof r === 'object' && !Array.isArray(r)) {
      for (const k of Object.keys(r)) if (!keys.includes(k)) keys.push(k);
    }
  }
  // Stable: keys of the same rank keep the order the rows have them in.
  const columns = keys
    .map((k, i) => ({ k, i }))
    .sort((a, b) => rank(a.k) - rank(b.k) || a.i - b.i)
    .slice(0, MAX_COLUMNS)
    .map((x) => x.k);
  const tbl = $('<table>');
  const head = $('<tr>').appendTo($('<thead>').appendTo(tbl));
  for (const c of columns) $('<th>').text(c).attr('data-tb-col', c).appendTo(head);
  const body = $('<tbody>').appendTo(tbl);
  for (const r of rows.slice(0, MAX_ROWS)) {
    const tr = $('<tr>').appendTo(body);
    const o = (r && typeof r === 'object' ? r : { value: r }) as Record<string, unknown>;
    for (const c of columns) {
      const td = $('<td>').attr('data-tb-col', c).appendTo(tr);
      if (c === 'ts') tsCell(td, o[c]);
      else {
        const text = cell(o[c]);
        td.text(text).attr('title', text);
      }
    }
  }
  return tbl;
}

/**
 * Why nothing matched: the conditions, when the query selects something without them (the admin endpoint counted
 * it), else nothing the query selects exists.
 */
function noMatchText(without: PreviewAnswer['withoutConditions']): string {
  if (!without || !(without.count > 0)) return t('previewNoMatch');
  const n = without.count;
  const what = `${n} ${without.entityType ? entityTypeName(without.entityType, n) : n === 1 ? 'entity' : 'entities'}`;
  return t(n === 1 ? 'previewNoMatchConditionsOne' : 'previewNoMatchConditions', { what });
}

export function renderAnswer(area: JQuery, answer: Answer<PreviewAnswer>): void {
  area.empty();
  if (!answer.ok) {
    area.attr('data-tb-preview', 'error');
    const e = answer.error;
    $('<div class="tb-b-error">')
      .text(
        e.status === 404 || e.code === 'TB_NOT_DEPLOYED'
          ? t('previewDeployFirst')
          : `${e.message}${e.code ? ` (${e.code})` : ''}`,
      )
      .appendTo(area);
    return;
  }
  const { payload, page, withoutConditions } = answer.value;
  if (typeof payload === 'number') {
    area.attr('data-tb-preview', 'count');
    $('<div class="tb-b-count">').text(String(payload)).appendTo(area);
    if (payload === 0) $('<div class="tb-b-hint">').text(noMatchText(withoutConditions)).appendTo(area);
    return;
  }
  if (Array.isArray(payload)) {
    const total = page && typeof page.totalElements === 'number' ? page.totalElements : payload.length;
    if (payload.length === 0) {
      area.attr('data-tb-preview', 'empty');
      $('<div class="tb-b-hint">')
        .text(total > 0 ? t('previewPastEnd', { total }) : noMatchText(withoutConditions))
        .appendTo(area);
      return;
    }
    area.attr('data-tb-preview', 'rows');
    $('<div class="tb-b-hint">')
      .text(t('previewRows', { shown: Math.min(payload.length, MAX_ROWS), count: payload.length, total }))
      .appendTo(area);
    area.append(table(payload));
    return;
  }
  if (payload && typeof payload === 'object') {
    area.attr('data-tb-preview', 'keys');
    const k = payload as { timeseries?: unknown; attributes?: Record<string, unknown> };
    const lines: string[] = [];
    if (Array.isArray(k.timeseries)) lines.push(`${t('keyType.TIME_SERIES')}: ${k.timeseries.join(', ') || '-'}`);
    if (k.attributes && typeof k.attributes === 'object') {
      for (const s of Object.keys(k.attributes)) {
        const list = k.attributes[s];
        lines.push(`${s}: ${Array.isArray(list) ? list.join(', ') || '-' : ''}`);
      }
    }
    for (const l of lines) $('<div>').text(l).appendTo(area);
    return;
  }
  area.attr('data-tb-preview', 'other');
  $('<pre>')
    .text(JSON.stringify(payload, null, 2))
    .appendTo(area);
}

function problemText(p: TryProblem): string {
  if (p.kind === 'refused') return p.message;
  if (p.kind === 'json') return t('bind.tryJson', { ref: p.ref, message: p.message });
  return t(p.kind === 'number' ? 'bind.tryNumber' : 'bind.tryMissing', { ref: p.ref });
}

/** The Preview button, the "try with" boxes of the query's bindings, and the result area. */
export interface PreviewPanel {
  element: JQuery;
  /** Shows a "try with" box for each binding of the query (called on every change of the query). */
  bindings(query: unknown): void;
  /**
   * Marks the answer shown as out of date when what a preview would run now is not what it answered (called on
   * every change of the dialog: the query, the JSON text, the operation, the connection).
   */
  check(): void;
}

/**
 * The Preview button and its result area. `request()` gives what to run, or a reason it cannot run yet. A query
 * with values from the message runs with the values typed in its "try with" boxes, resolved as the runtime
 * resolves them; no placeholder is ever sent, and a box left empty sends nothing.
 *
 * An answer stays on screen after the query changes (it still helps), but greyed under "The query changed: preview
 * again", so that nobody reads it as the answer to the query the dialog now holds; an answer that arrives after
 * such a change shows so too.
 */
export function previewPanel(lookups: Lookups, request: () => PreviewRequest | { problem: string }): PreviewPanel {
  const wrap = $('<div class="tb-b-preview-wrap">');
  const tries = $('<div class="tb-b-try" data-tb-try-with>').hide().appendTo(wrap);
  const btn = button('preview', t('preview'), 'fa-play').removeClass('red-ui-button-small').appendTo(wrap);
  const staleNote = $('<div class="tb-b-hint tb-b-stale-note" data-tb-preview-stale-note>')
    .text(t('previewStale'))
    .hide()
    .appendTo(wrap);
  const area = $('<div class="tb-b-preview">').attr('data-tb-preview', 'idle').appendTo(wrap);
  /** What was typed for each binding (kept while the dialog is open, even when a binding goes and comes back). */
  const typed = new Map<string, TryValue>();
  let shownRefs = '';
  let seq = 0;
  /** What the answer on screen (or the preview running) was asked with; undefined before the first preview. */
  let asked: string | undefined;
  /** What Preview would run now (the request, its query with the values tried) or why it cannot, and that as text. */
  const plan = (): { key: string; problem: string } | { key: string; req: PreviewRequest; query: unknown } => {
    const req = request();
    if ('problem' in req) return { key: JSON.stringify(['problem', req.problem]), problem: req.problem };
    const tried = tryQuery(req.query, typed);
    if (!tried.ok) {
      const problem = problemText(tried.problem);
      return { key: JSON.stringify(['problem', problem]), problem };
    }
    return { key: JSON.stringify([req.connection, req.node, req.operation, tried.query]), req, query: tried.query };
  };
  const mark = (stale: boolean): void => {
    area.toggleClass('tb-b-stale', stale).attr('data-tb-preview-stale', stale ? 'true' : null);
    staleNote.toggle(stale);
  };
  const check = (): void => mark(asked !== undefined && plan().key !== asked);
  const fail = (text: string) => {
    area.attr('data-tb-preview', 'error');
    $('<div class="tb-b-error">').text(text).appendTo(area);
  };
  btn.on('click', () => {
    const p = plan();
    area.empty();
    asked = p.key;
    mark(false);
    if ('problem' in p) return fail(p.problem);
    const { req, query } = p;
    const mine = ++seq;
    area.attr('data-tb-preview', 'running');
    $('<div class="tb-b-hint">').text(t('previewRunning')).appendTo(area);
    void lookups.preview({ node: req.node, operation: req.operation, query, format: 'flat' }).then((answer) => {
      if (mine !== seq) return;
      renderAnswer(area, answer);
      // The query may have changed while the server answered.
      check();
    });
  });
  return {
    element: wrap,
    check,
    bindings(query: unknown): void {
      const refs = tryRefs(query);
      const key = refs.map((r) => `${r.ref.text}:${r.type}`).join('\n');
      if (key === shownRefs) return;
      shownRefs = key;
      tries.empty().toggle(refs.length > 0);
      if (!refs.length) return;
      $('<span>').text(t('bind.tryWith')).appendTo(tries);
      for (const { ref, type } of refs) {
        const value = typed.get(ref.text) ?? { type, text: '' };
        typed.set(ref.text, value);
        const one = $('<span class="tb-b-try-one">').attr('data-tb-try', ref.text).appendTo(tries);
        $('<code>').text(ref.text).appendTo(one);
        const kind = $('<select>').attr('data-tb-try-type', ref.text).appendTo(one);
        for (const k of ['num', 'str', 'json'] as const)
          $('<option>')
            .val(k)
            .text(t(`bind.tryType.${k}`))
            .appendTo(kind);
        kind.val(value.type);
        const box = $('<input type="text">').attr('data-tb-try-value', ref.text).val(value.text).appendTo(one);
        // The values tried are part of what the preview answered.
        kind.on('change', () => {
          value.type = String(kind.val()) as TryValue['type'];
          check();
        });
        box.on('change input', () => {
          value.text = String(box.val() ?? '');
          check();
        });
      }
    },
  };
}

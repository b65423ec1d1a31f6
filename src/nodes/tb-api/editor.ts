/**
 * tb-api's dialog: any REST call on the connection's server. The common calls of the connected server's version are
 * offered in a list (picking one fills in method, path and query); the path is checked as the runtime checks it
 * (an address, a `..` leaving /api/ or a host is flagged at once); a GET can be tried before deploy, on the deployed
 * connection, with values typed for the placeholders.
 */
import { request } from '../../editor/builder/lookups';
import { messageSettings } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import {
  fillPathTemplate,
  isNoAuthPath,
  pathTemplateRefs,
  pathWithQuery,
  preparePathTemplate,
  splitPathAndQuery,
  type PathTemplate,
} from '../../protocol/api-call';
import type { ApiPathSuggestion } from '../../protocol/api-paths';
import { fromMessage as settingsFromMessage } from '../../settings/declare';
import { unsetNode as fromMessage } from '../../settings/options';
import { label } from './label';
import { checkApiSettings } from './logic';
import { MIGRATIONS } from './migrations';
import { TB_API } from './settings';

const E = forType('tb-api');
const t = E.t;
const SETTINGS = ['method', 'path', 'query', 'bodyFrom', 'body'] as const;

/** The settings as the dialog holds them now. */
function current(node: EditorNode): Record<string, unknown> {
  const s: Record<string, unknown> = {};
  for (const p of SETTINGS) s[p] = E.value(node, p);
  return s;
}

/** The runtime's check of the settings, reported by the setting it is about. */
function runtime(name: string): Validator {
  return function (v, opt) {
    if (v === undefined) return true;
    try {
      checkApiSettings(current(this));
      return true;
    } catch (err) {
      const field = String((err as { field?: unknown }).field ?? '');
      return field === name ? (err as Error).message : true;
    }
  };
}

function method(node: EditorNode): string {
  return String(E.value(node, 'method') ?? '');
}

/** The path template as the dialog holds it, or undefined when the path is empty or wrong. */
function template(node: EditorNode): PathTemplate | undefined {
  const path = String(E.value(node, 'path') ?? '');
  if (fromMessage(path)) return undefined;
  try {
    return preparePathTemplate(path, String(E.value(node, 'query') ?? ''), 'path', 'query');
  } catch {
    return undefined;
  }
}

/** What the call sends, in words. */
function summary(node: EditorNode): string {
  const path = String(E.value(node, 'path') ?? '').trim();
  if (fromMessage(path)) return t('tb-api.summary.fromMsg');
  const m = method(node) || t('tb-api.summary.methodFromMsg');
  const shown = splitPathAndQuery(path).path;
  return t(
    isNoAuthPath(shown.startsWith('/') ? shown : `/${shown}`) ? 'tb-api.summary.noauth' : 'tb-api.summary.token',
    {
      method: m,
      path: shown,
    },
  );
}

function connectionId(): string | undefined {
  const id = String(E.input('connection').val() ?? '');
  return id && id !== '_ADD_' ? id : undefined;
}

interface PathsAnswer {
  serverVersion: string | null;
  authority: string | null;
  items: ApiPathSuggestion[];
}

/** The list of common calls, filled from the connected server (and again when the connection changes). */
function suggestions(): void {
  const select = $('[data-tb-api-suggest]');
  const note = $('[data-tb-api-suggest-note]');
  let items: ApiPathSuggestion[] = [];
  let asked = 0;
  let shownFor: string | undefined;
  const fill = (): void => {
    const id = connectionId();
    // The editor sets the connection again as it fills its list: the same server keeps the list it has.
    if (id === shownFor) return;
    shownFor = id;
    const mine = ++asked;
    select
      .empty()
      .append($('<option value="">').text(t(id ? 'tb-api.suggest.loading' : 'tb-api.suggest.noConnection')));
    select.attr('data-tb-state', id ? 'loading' : 'none');
    note.hide();
    if (!id) return;
    void request<PathsAnswer>('GET', `tb-connection/${encodeURIComponent(id)}/api-paths`).then((a) => {
      if (mine !== asked) return;
      select.empty();
      if (!a.ok) {
        select.append($('<option value="">').text(t('tb-api.suggest.pick')));
        select.attr('data-tb-state', 'failed');
        const deploy = a.error.status === 404 || a.error.code === 'TB_NOT_DEPLOYED';
        note
          .text(deploy ? t('tb-api.suggest.deployFirst') : t('tb-api.suggest.failed', { message: a.error.message }))
          .show();
        return;
      }
      items = a.value.items;
      const v = a.value.serverVersion;
      select.append(
        $('<option value="">').text(
          v
            ? t('tb-api.suggest.pickFor', { count: items.length, version: v })
            : t('tb-api.suggest.pickAny', { count: items.length }),
        ),
      );
      const groups = new Map<string, JQuery>();
      items.forEach((s, i) => {
        let g = groups.get(s.group);
        if (!g) {
          g = $('<optgroup>').attr('label', s.group).appendTo(select);
          groups.set(s.group, g);
        }
        $('<option>')
          .val(String(i))
          .attr('data-tb-path', s.path)
          .text(`${s.method} ${s.path}${s.query ? `?${s.query}` : ''}: ${s.what}`)
          .appendTo(g);
      });
      select.attr('data-tb-state', 'ready');
    });
  };
  select.on('change', () => {
    const i = String(select.val() ?? '');
    if (i === '') return;
    const s = items[Number(i)];
    if (!s) return;
    E.input('method').val(s.method).trigger('change');
    E.input('path').val(s.path).trigger('change');
    E.input('query')
      .val(s.query ?? '')
      .trigger('change');
    select.val('');
  });
  E.input('connection').on('change', fill);
  fill();
}

/** The Try button: a GET on the deployed connection, placeholders filled with the values typed beside it. */
function tryPanel(node: EditorNode): void {
  const withArea = $('[data-tb-api-try-with]');
  const button = $('[data-tb-api-try]');
  const result = $('[data-tb-api-try-result]');
  const typed = new Map<string, string>();
  let shownRefs = '';
  const refsNow = (): string[] => {
    const tpl = template(node);
    return tpl ? pathTemplateRefs(tpl).map((r) => r.text) : [];
  };
  const showRefs = (): void => {
    const refs = refsNow();
    const key = refs.join('\n');
    if (key === shownRefs) return;
    shownRefs = key;
    withArea.empty().toggle(refs.length > 0);
    if (!refs.length) return;
    $('<span style="margin-right: 6px;">').text(t('tb-api.try.with')).appendTo(withArea);
    for (const ref of refs) {
      const one = $('<span style="display: inline-block; margin: 0 8px 4px 0;">').appendTo(withArea);
      $('<code style="margin-right: 4px;">').text(ref).appendTo(one);
      $('<input type="text" style="width: 140px;">')
        .attr('data-tb-api-try-value', ref)
        .val(typed.get(ref) ?? '')
        .on('change input', function (this: HTMLInputElement) {
          typed.set(ref, this.value);
        })
        .appendTo(one);
    }
  };
  const state = (s: string): JQuery => result.attr('data-tb-state', s).empty();
  const fail = (text: string): void => {
    $('<div class="form-tips" style="color: var(--red-ui-text-color-error, #c00);">')
      .text(text)
      .appendTo(state('error'));
  };
  const update = (): void => {
    showRefs();
    const get = method(node) === 'GET';
    button.prop('disabled', !get).attr('title', get ? null : t('tb-api.try.onlyGet'));
  };
  E.follow(update, ['method', 'path', 'query']);
  button.on('click', (e) => {
    e.preventDefault();
    if (method(node) !== 'GET') return fail(t('tb-api.try.onlyGet'));
    const path = String(E.value(node, 'path') ?? '');
    if (fromMessage(path)) return fail(t('tb-api.try.noPath'));
    let filled: string;
    try {
      const tpl = preparePathTemplate(path, String(E.value(node, 'query') ?? ''), 'path', 'query');
      const missing = pathTemplateRefs(tpl).find((r) => !(typed.get(r.text) ?? '').trim());
      if (missing) return fail(t('tb-api.try.missing', { ref: `{{${missing.text}}}` }));
      const f = fillPathTemplate(tpl, (r) => typed.get(r.text)?.trim(), 'path', 'query');
      filled = pathWithQuery(f.path, f.query);
    } catch (err) {
      return fail((err as Error).message);
    }
    const id = connectionId();
    if (!id) return fail(t('tb-api.suggest.noConnection'));
    $('<div class="form-tips">').text(t('tb-api.try.running')).appendTo(state('running'));
    void request<TryAnswer>('POST', `tb-connection/${encodeURIComponent(id)}/api-try`, {
      method: 'GET',
      path: filled,
    }).then((a) => show(a));
  });
  const show = (
    a: { ok: true; value: TryAnswer } | { ok: false; error: { status: number; code: string; message: string } },
  ) => {
    if (!a.ok) {
      const deploy = a.error.status === 404 || a.error.code === 'TB_NOT_DEPLOYED';
      return fail(deploy ? t('tb-api.try.deployFirst') : a.error.message);
    }
    const r = a.value;
    if (!r.ok) {
      fail(r.message);
      result.attr('data-tb-status', r.statusCode ?? '');
      return;
    }
    const area = state(r.kind).attr('data-tb-status', r.statusCode);
    $('<div class="form-tips">')
      .attr('data-tb-api-try-head', '')
      .text(`${r.path}: ${t('tb-api.try.status', { status: r.statusCode, type: r.contentType || '-' })}`)
      .appendTo(area);
    if (r.kind === 'file' && r.file) {
      const size = r.file.size < 1024 ? `${r.file.size} B` : `${Math.round(r.file.size / 102.4) / 10} KB`;
      $('<div>')
        .text(
          r.file.name
            ? t('tb-api.try.file', { name: r.file.name, type: r.file.contentType, size })
            : t('tb-api.try.fileNoName', { type: r.file.contentType, size }),
        )
        .appendTo(area);
    } else if (r.kind === 'empty') {
      $('<div>').text(t('tb-api.try.empty')).appendTo(area);
    } else {
      $('<pre style="max-height: 240px; overflow: auto; margin-top: 4px; white-space: pre-wrap;">')
        .attr('data-tb-api-try-text', '')
        .text(r.text ?? '')
        .appendTo(area);
      if (r.cut) $('<div class="form-tips">').text(t('tb-api.try.cut')).appendTo(area);
    }
  };
}

type TryAnswer =
  | {
      ok: true;
      statusCode: number;
      contentType: string;
      kind: 'json' | 'text' | 'file' | 'empty';
      text?: string;
      cut?: boolean;
      file?: { name?: string; contentType: string; size: number };
      path: string;
    }
  | { ok: false; statusCode?: number; code: string; message: string; path: string };

export default dialog(E, {
  declaration: TB_API,
  migrations: MIGRATIONS,
  validators: {
    method: runtime('method'),
    path: runtime('path'),
    query: runtime('query'),
    body: runtime('body'),
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    // Method, path and query left empty read msg.method, msg.path and msg.query.
    messageSettings(E, node, settingsFromMessage(TB_API));
    // A fixed body is JSON: the JSON type gives it the editor's JSON view.
    E.input('body').typedInput({ default: 'json', types: ['json'] });
    E.showRows(() => {
      const get = method(node) === 'GET';
      return {
        '.tb-api-row-body': !get,
        '.tb-api-row-json': !get && E.value(node, 'bodyFrom') === 'json',
      };
    }, ['method', 'bodyFrom']);
    const line = $('[data-tb-api-summary]');
    E.follow(() => line.text(summary(node)), ['method', 'path']);
    suggestions();
    tryPanel(node);
  },
  oneditsave() {
    E.trim(['path', 'query', 'body']);
  },
});

/**
 * The query builder of a node's dialog: "Builder" and "JSON" views of one query object, kept in sync both
 * ways, for the JSON source of the node's query TypedInput (msg / flow / global / JSONata keep the TypedInput
 * as it is). Under the query: a plain-language summary, the fields the builder holds without a control, the
 * runtime's own validation message, and the preview.
 *
 * The query text in the node (the TypedInput's value) is rewritten on every edit, in its one-line form; an
 * invalid JSON text stays as typed (never reset) and keeps the JSON view.
 */
import { compactQuery, formatQuery, locatePath, parseJsonText, shortJsonMessage } from '../../query-model/json-text';
import { heldPaths } from '../../query-model/paths';
import { builderCoverage, defaultQuery, jsonSchema, MODE_SCHEMA, type QueryMode } from '../../query-model/schema';
import { summarize } from '../../query-model/summary';
import { renderAlarm } from './alarm';
import { showNeeds } from './bind';
import { allowPlaceholders, checkBound } from './bound';
import { button, ensureStyle, t } from './dom';
import { renderEntityFilter } from './entity-filter';
import { renderFields, renderPage } from './fields-page';
import { JsonView } from './json-view';
import { renderKeyFilters } from './key-filters';
import { Lookups } from './lookups';
import { switchMode } from './mode-switch';
import { isObj, Model, type Ctx, type Query } from './model';
import { previewPanel } from './preview';
import type { QueryError } from './validation';
import { chosenView, rememberView, type View } from './views';

export interface AttachOptions {
  /** The node type (for the preview). */
  nodeType: string;
  /** The query TypedInput, e.g. '#node-input-query' (already a TypedInput). */
  input: string;
  /** Where the builder goes (an empty div of the dialog). */
  container: string;
  /** The query kind for the node's current settings. */
  mode(): QueryMode;
  /** The node's operation (or subscription kind), sent with the preview. */
  operation(): string;
  /** The selected connection's id. */
  connection(): string | undefined;
  /** A live subscription (tb-subscribe). */
  live?: boolean;
  /** The node's id: the view chosen for it is its own (views.ts). */
  id?: string;
  /**
   * The node's saved query text. The TypedInput keeps one line of it; a text kept as typed (invalid JSON) has
   * its lines only here.
   */
  text?: string;
}

export interface Builder {
  /** The node's settings changed the kind of query (operation or subscription kind). */
  modeChanged(): void;
  resize(): void;
  /** Writes the query into the node's input (save) and releases the code editor. */
  close(): void;
  readonly model: Model;
}

export function attach(o: AttachOptions): Builder {
  ensureStyle();
  const input = $(o.input);
  const host = $(o.container).empty().addClass('tb-b');
  const lookups = new Lookups(o.connection);
  let mode = o.mode();
  const chosen = chosenView(o.id);
  let view: View = chosen ?? 'builder';
  /** The parts a change of operation took away (a find's page and columns), for the way back. */
  const leftBehind: Query = {};
  let writing = false;
  /** The JSON text does not parse (or is not an object): the builder view waits until it does. */
  let jsonProblem: { message: string; line: number; column: number } | undefined;
  const notAnObject = () => ({ message: t('notAnObject'), line: 1, column: 1 });
  /** The problem of a parsed text, if any. */
  const problemOf = (p: ReturnType<typeof parseJsonText>) =>
    !p.ok ? { ...p, message: shortJsonMessage(p.message) } : isObj(p.value) ? undefined : notAnObject();

  // ---- layout --------------------------------------------------------------------------------------------
  const bar = $('<div class="tb-b-bar">').appendTo(host);
  const views = $('<span class="tb-b-views red-ui-button-group">').appendTo(bar);
  const builderBtn = button('view-builder', t('view.builder'), 'fa-sliders')
    .attr('data-tb-view', 'builder')
    .removeAttr('data-tb-action')
    .removeClass('red-ui-button-small')
    .appendTo(views);
  const jsonBtn = button('view-json', t('view.json'), 'fa-code')
    .attr('data-tb-view', 'json')
    .removeAttr('data-tb-action')
    .removeClass('red-ui-button-small')
    .appendTo(views);
  const summary = $('<div class="tb-b-summary" data-tb-summary>').appendTo(host);
  const held = $('<div class="tb-b-held" data-tb-held>').hide().appendTo(host);
  const problem = $('<div class="tb-b-hint" data-tb-lookup-problem>').hide().appendTo(host);
  const form = $('<div class="tb-b-form" data-tb-builder>').appendTo(host);
  const json = new JsonView(host, onJsonText);
  const error = $('<div class="tb-b-error" data-tb-error>').hide().appendTo(host);
  const preview = previewPanel(lookups, () => {
    const c = o.connection();
    if (!c || c === '_ADD_') return { problem: t('previewNoConnection') };
    if (jsonProblem) return { problem: t('previewFixJson') };
    return { node: o.nodeType, operation: o.operation(), query: model.query, connection: c };
  });
  host.append(preview.element);
  // Any change in the dialog (the operation, the connection, a setting) may make the preview's answer one to another
  // query: it checks (the builder's own edits check through refreshInfo).
  const dialogForm = host.closest('form');
  dialogForm.on('change.tbPreview input.tbPreview', () => preview.check());

  lookups.onNames(() => refreshInfo());
  lookups.onProblem((p) => {
    if (!p) problem.hide();
    else
      problem
        .text(
          p.status === 404 || p.code === 'TB_NOT_DEPLOYED'
            ? t('lookupDeployFirst')
            : t('lookupFailed', { message: p.message }),
        )
        .show();
  });

  // ---- the model -----------------------------------------------------------------------------------------
  // The saved text, when it is what the input holds apart from its line breaks.
  const saved =
    typeof o.text === 'string' && o.text.replace(/[\r\n]/g, '') === String(input.val() ?? '').replace(/[\r\n]/g, '')
      ? o.text
      : undefined;
  if (saved !== undefined && saved !== input.val()) input.val(saved);
  const initial = parseJsonText(String(input.val() ?? ''));
  const blank = String(input.val() ?? '').trim() === '';
  const model = new Model(
    blank ? defaultQuery(mode) : initial.ok && isObj(initial.value) ? (initial.value as Query) : {},
  );
  const ctx: Ctx = { model, mode, live: !!o.live, lookups, rerender: renderForm };
  if (!blank && (!initial.ok || !isObj(initial.value))) {
    jsonProblem = problemOf(initial);
    view = 'json';
  } else if (!chosen && withoutControl(model.query).length > 0) {
    // Typed as JSON with fields the builder has no control for: the JSON view shows them all.
    view = 'json';
  }

  model.onChange(() => {
    writeInput(compactQuery(model.query));
    refreshInfo();
  });

  /**
   * Puts a query text into the node's input. The TypedInput's own box is one line, so a text that is kept as
   * typed (invalid JSON, several lines) also goes straight into the node's (hidden) input, which the editor
   * saves: its lines, and so the line numbers of its error, stay as they were.
   */
  function writeInput(text: string): void {
    writing = true;
    try {
      input.typedInput('value', text);
      if (input.val() !== text) input.val(text);
    } finally {
      writing = false;
    }
  }
  /** The node's query text as saved (with its lines). */
  const storedText = (): string => String(input.val() ?? '');

  // ---- views ---------------------------------------------------------------------------------------------
  function setView(v: View): void {
    if (v === 'builder' && jsonProblem) {
      RED.notify(t('fixJsonFirst'), { type: 'warning', timeout: 3000 });
      return;
    }
    view = v;
    builderBtn.toggleClass('selected', v === 'builder');
    jsonBtn.toggleClass('selected', v === 'json');
    if (v === 'builder') {
      json.hide();
      renderForm();
      form.show();
    } else {
      form.hide();
      json.show(
        jsonProblem ? storedText() : formatQuery(model.query),
        allowPlaceholders(jsonSchema(mode, { live: ctx.live })),
      );
    }
    refreshInfo();
  }
  /** A person's choice of view: this node's from now on. */
  function choose(v: View): void {
    setView(v);
    if (view === v) rememberView(o.id, v);
  }
  builderBtn.on('click', () => choose('builder'));
  jsonBtn.on('click', () => choose('json'));

  function onJsonText(text: string): void {
    const parsed = parseJsonText(text);
    if (parsed.ok && isObj(parsed.value)) {
      jsonProblem = undefined;
      model.replace(parsed.value as Query);
    } else {
      jsonProblem = problemOf(parsed);
      // Kept exactly as typed: the node holds the text, and its validation shows the error.
      writeInput(text);
      refreshInfo();
    }
    builderBtn.prop('disabled', !!jsonProblem);
  }

  function renderForm(): void {
    ctx.mode = mode;
    const parts = MODE_SCHEMA[mode].parts;
    form.empty();
    for (const part of parts) {
      if (part === 'entityFilter') form.append(renderEntityFilter(ctx));
      else if (part === 'keyFilters') form.append(renderKeyFilters(ctx));
      else if (part === 'fields') form.append(renderFields(ctx));
      else if (part === 'page') form.append(renderPage(ctx));
      else if (part === 'alarm') form.append(renderAlarm(ctx));
    }
    refreshInfo();
  }

  // ---- summary, held fields, validation ------------------------------------------------------------------
  function refreshInfo(): void {
    if (jsonProblem) {
      summary.text('');
      held.hide();
      const where = t('lineColumn', { line: jsonProblem.line, column: jsonProblem.column });
      error.text(`${t('jsonError', { error: jsonProblem.message })} ${where}`).show();
      json.mark({ line: jsonProblem.line, column: jsonProblem.column, message: jsonProblem.message });
      preview.check();
      return;
    }
    summary.text(summarize(mode, model.query, { live: ctx.live, nameOf: (e) => lookups.knownName(e.id) }));
    // A value bound to the message is checked at run time: its chip says what kind it must be (bound.ts).
    const bound = checkBound(mode, model.query, { live: ctx.live });
    const checked = bound.verdict;
    showNeeds(form, bound.needs);
    preview.bindings(model.query);
    preview.check();
    const extra = withoutControl(model.query);
    // Whole parts this kind of query does not send (e.g. a find query's page after switching to count).
    const sent = checked.ok && isObj(checked.value) ? checked.value : undefined;
    const unused = sent ? [...new Set(extra.map((p) => p.split('.')[0]))].filter((top) => !(top in sent)) : [];
    const kept = extra.filter((p) => !unused.includes(p.split('.')[0]));
    held.empty();
    const list = (label: string, items: string[]) => {
      const line = $('<div>')
        .append($('<span>').text(`${label} `))
        .appendTo(held);
      items.forEach((p, i) => {
        if (i) line.append(', ');
        $('<code>').text(p).appendTo(line);
      });
    };
    if (kept.length) list(t('held'), kept);
    if (unused.length) list(t('unused'), unused);
    held.toggle(kept.length + unused.length > 0);
    showError(checked.ok ? undefined : { field: checked.field, path: checked.path, message: checked.message });
  }

  /** The paths of the query that no control of the builder shows (a null is shown as nothing: not counted). */
  function withoutControl(q: Query): string[] {
    return heldPaths(q, builderCoverage(mode, q, { live: ctx.live })).filter((p) => !isNullAt(q, p));
  }

  function showError(e: QueryError | undefined): void {
    host.find('.tb-b-invalid').removeClass('tb-b-invalid');
    if (!e) {
      error.hide();
      json.mark(undefined);
      return;
    }
    let where = '';
    if (view === 'json') {
      const at = locatePath(json.text(), e.field);
      if (at) {
        where = ` ${t('lineColumn', { line: at.line, column: at.column })}`;
        json.mark({ line: at.line, column: at.column, message: e.message });
      }
    } else {
      // The control of the field (or of its nearest parent that has one).
      let path = e.path;
      while (path) {
        const el = form.find(`[data-tb-field="${path}"]`);
        if (el.length) {
          el.addClass('tb-b-invalid');
          break;
        }
        path = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
      }
    }
    error.text(e.message + where).show();
  }

  // ---- the TypedInput: the builder serves the JSON source ------------------------------------------------
  // The TypedInput draws its own box right after the original input.
  const container = input.nextAll('.red-ui-typedInput-container').first();
  const sourceHint = $('<span class="tb-b-source-hint" data-tb-source-hint>')
    .text(t('builtBelow'))
    .insertAfter(container);
  function onSource(): void {
    const json = input.typedInput('type') === 'json';
    container.toggleClass('tb-query-builder-on', json);
    sourceHint.toggle(json);
    host.toggle(json);
    if (json) setView(view);
  }
  let lastType = input.typedInput('type');
  input.on('change', () => {
    if (writing) return;
    const type = input.typedInput('type');
    const switched = type !== lastType;
    const from = lastType;
    lastType = type;
    if (switched && from === 'json' && !jsonProblem && storedText() === compactQuery(model.query)) {
      // Leaving the builder: the query text is no message property or context key; start that box empty (msg
      // then fills in "payload"). The builder keeps its query for a way back.
      input.typedInput('value', '');
      onSource();
      return;
    }
    if (type === 'json') {
      const text = storedText();
      // Back to the builder: a text typed for msg / flow / global / JSONata is not a query; the builder's is.
      if (switched && !parseJsonText(text).ok) writeInput(compactQuery(model.query));
      else if (text !== compactQuery(model.query)) onJsonTextFromInput(text);
    }
    onSource();
  });
  function onJsonTextFromInput(text: string): void {
    const parsed = parseJsonText(text);
    if (text.trim() === '') {
      jsonProblem = undefined;
      model.replace(defaultQuery(mode));
    } else if (parsed.ok && isObj(parsed.value)) {
      jsonProblem = undefined;
      model.replace(parsed.value as Query);
    } else {
      jsonProblem = problemOf(parsed);
      view = 'json';
    }
  }
  if (blank) writeInput(compactQuery(model.query));
  onSource();

  return {
    model,
    modeChanged(): void {
      const next = o.mode();
      if (next === mode) return;
      const untouched = compactQuery(model.query) === compactQuery(defaultQuery(mode));
      if (untouched) model.query = defaultQuery(next);
      else switchMode(model.query, mode, next, leftBehind);
      mode = next;
      ctx.mode = next;
      writeInput(compactQuery(model.query));
      if (view === 'builder') renderForm();
      else json.show(formatQuery(model.query), allowPlaceholders(jsonSchema(mode, { live: ctx.live })));
      refreshInfo();
    },
    resize(): void {
      json.resize();
    },
    close(): void {
      if (input.typedInput('type') === 'json' && !jsonProblem) writeInput(compactQuery(model.query));
      json.destroy();
      dialogForm.off('.tbPreview');
      sourceHint.remove();
      container.removeClass('tb-query-builder-on');
    },
  };
}

function isNullAt(q: Query, dotted: string): boolean {
  let cur: unknown = q;
  for (const seg of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return false;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur === null;
}

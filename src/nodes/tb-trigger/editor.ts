/**
 * tb-trigger's dialog: what it watches (the entities of a query built here, an entity picked by name, or the entities
 * messages name), when (conditions on a value, built with tb-wait-until's parts: the key as a chip suggested from
 * the server, the operators, the value from the dialog or the message; an alarm; a silence), how long it must hold,
 * and the trigger read back in words ("when temperature > 25 has held for 10 min on any of 20 thermostats").
 */
import { keysInput } from '../../editor/builder/actions';
import { alarmTypeInput } from '../../editor/builder/dialogs';
import { filterProfiles } from '../../editor/builder/keys';
import { Lookups } from '../../editor/builder/lookups';
import { keyKind, oneKey, oneKeyNamed, typedValueOk, valueProblem } from '../../editor/dialog/condition';
import { watchedEntityTarget } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import { PICKED, pickedEntity } from '../../editor/dialog/picked-entity';
import { blank } from '../../editor/dialog/predicates';
import { queryPart } from '../../editor/dialog/query-part';
import { ALARM_SEVERITIES } from '../../protocol/types';
import { filterEntityType } from '../../query-model/schema';
import { entitiesLabel } from '../../query-model/summary';
import { CONDITION_KEY_TYPES, STATE_OPERATORS } from '../../settings/conditions';
import { VALUE_TYPES } from '../../settings/value-rows';
import { conditionOf, itemsOf, label, rowsOf, sentence, watchOf, type Get, type RowLike } from './label';
import { MIGRATIONS } from './migrations';
import { TB_TRIGGER, type ConditionRow } from './settings';

const E = forType('tb-trigger');
const t = E.t;
const T = 'tb-trigger';

/** The node's settings as the dialog holds them now (else as saved). */
const live =
  (node: EditorNode): Get =>
  (prop) =>
    E.value(node, prop);

const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v)).trim();

/** The row a new condition starts as. */
const NEW_ROW: ConditionRow = { keyType: 'TIME_SERIES', key: '', operator: 'gt', value: '', valueType: 'num' };

// ---------------------------------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------------------------------

/** What is wrong with a condition row, in words ("name the one key it reads…"), or undefined. */
function rowProblem(r: RowLike): string | undefined {
  const keyType = str(r.keyType) || NEW_ROW.keyType;
  if ((CONDITION_KEY_TYPES as readonly string[]).indexOf(keyType) === -1) return t(`${T}.problem.keyType`);
  if (!oneKeyNamed(r.key)) return t(`${T}.problem.key`);
  const operator = str(r.operator);
  if ((STATE_OPERATORS as readonly string[]).indexOf(operator) === -1) return t(`${T}.problem.operator`);
  const type = str(r.valueType) || 'str';
  if ((VALUE_TYPES as readonly string[]).indexOf(type) === -1) return t(`${T}.problem.valueType`);
  const problem = valueProblem(operator, type, r.value);
  if (problem === 'typed')
    return typedValueOk(type, r.value) ? undefined : t(`${T}.problem.typed`, { type: t(`${T}.valueType.${type}`) });
  return problem ? t(`${T}.problem.${problem}`) : undefined;
}

/** The conditions of a value trigger: at least one, each with its key, a comparison and a value that fits it. */
const conditions: Validator = E.when(
  function () {
    return conditionOf(live(this)) === 'value';
  },
  function (v, opt) {
    const rows = Array.isArray(v) ? rowsOf(v) : [];
    if (!rows.length || rows.length !== (v as unknown[]).length) return t(`${T}.errors.conditions`);
    for (let i = 0; i < rows.length; i++) {
      const problem = rowProblem(rows[i]);
      if (problem) return t(`${T}.errors.row`, { n: i + 1, problem });
    }
    return true;
  },
);

// Any entity with attributes and time series, checked by the runtime's own rules; texts from this catalog.
const target = watchedEntityTarget(E);

/**
 * The entity: none for a query; picked by name (or typed JSON) for one entity; where the message names it (the
 * message, msg., JSONata) for the entities messages name.
 */
const targetValidator: Validator = function (v, opt) {
  if (v === undefined) return true;
  const watch = watchOf(live(this));
  if (watch === 'query') return true;
  const source = str(E.value(this, 'targetType')) || 'auto';
  if (watch === 'entity' && source !== 'json') return t(`${T}.errors.targetPick`);
  if (watch === 'message' && source === 'json') return t(`${T}.errors.targetMessage`);
  return target.target.call(this, v, opt);
};

const query = queryPart(E, { mode: () => 'entityData', operation: () => 'entityData', live: true });

// ---------------------------------------------------------------------------------------------------------------
// The conditions list
// ---------------------------------------------------------------------------------------------------------------

/** The conditions element's value: what Node-RED reads with .val() (the rows themselves, as value-rows.ts keeps). */
type RowsElement = HTMLElement & { value?: unknown };

let keyInputs = 0;

/**
 * The list of condition rows in `#node-input-conditions`: each a key type, the key as one chip suggested from the
 * server, a comparison and the value compared with (a TypedInput: fixed, or from the message, the context, env,
 * JSONata). The element's value is the rows, kept up to date.
 */
function conditionList(node: EditorNode, keySource: () => ReturnType<typeof target.fixed>, watch: string[]) {
  const holder = E.input('conditions');
  const empty = $('<div data-tb-conditions-empty style="font-style: italic; opacity: 0.75; margin: 4px 0 6px;">')
    .text(t(`${T}.placeholder.noConditions`))
    .appendTo(holder);
  const list = $('<ol data-tb-condition-list></ol>').appendTo(holder);

  const rowsShown = () => list.children('li').not('.red-ui-editableList-item-deleting').find('[data-tb-condition-row]');

  function read(): ConditionRow[] {
    const rows: ConditionRow[] = [];
    rowsShown().each(function () {
      const row = $(this);
      const value = row.find('input[data-tb-condition-value]');
      rows.push({
        keyType: String(row.find('select[data-tb-condition-key-type]').val()) as ConditionRow['keyType'],
        key: str(row.find('input[data-tb-condition-key]').val()),
        operator: String(row.find('select[data-tb-condition-operator]').val()) as ConditionRow['operator'],
        value: value.typedInput('value'),
        valueType: value.typedInput('type') as ConditionRow['valueType'],
      });
    });
    return rows;
  }

  /**
   * Marks each row's key box (a key missing) or value box (a value that does not fit), after the key box has drawn its
   * chips again (a chip removed or added redraws them, after the change it reports).
   */
  function mark(): void {
    const rows = read();
    rowsShown().each(function (i) {
      const row = $(this);
      const r = rows[i];
      const problem = r === undefined ? undefined : rowProblem(r);
      const keyBad = r !== undefined && !oneKeyNamed(r.key);
      row.find('.tb-b-chips input.tb-b-text').toggleClass('tb-b-invalid', keyBad);
      row.find('.red-ui-typedInput-container').toggleClass('input-error', problem !== undefined && !keyBad);
      row.attr('data-tb-problem', problem ?? '');
    });
  }

  /** Keeps the element's value (what Node-RED saves and checks) and the rows' marks in step with the list. */
  function changed(): void {
    const rows = read();
    (holder[0] as RowsElement).value = rows;
    list
      .closest('.red-ui-editableList')
      .find('.red-ui-editableList-border')
      .toggle(rows.length > 0);
    empty.toggle(rows.length === 0);
    setTimeout(mark, 0);
    holder.trigger('change');
  }

  function option(select: JQuery, value: string, text: string): void {
    $('<option>').val(value).text(text).appendTo(select);
  }

  list.editableList({
    addItem(li: JQuery, _index: number, data: Partial<ConditionRow>) {
      const r = { ...NEW_ROW, ...data };
      const row = $('<div data-tb-condition-row>').appendTo(li);
      const line1 = $('<div style="display: flex; gap: 6px; align-items: flex-start;">').appendTo(row);
      const keyType = $('<select data-tb-condition-key-type style="width: 140px; flex: none;">').appendTo(line1);
      for (const k of CONDITION_KEY_TYPES) option(keyType, k, t(`${T}.keyType.${k}`));
      keyType.val((CONDITION_KEY_TYPES as readonly string[]).indexOf(r.keyType) !== -1 ? r.keyType : NEW_ROW.keyType);
      const keyId = `tb-trigger-key-${++keyInputs}`;
      const keyTypeId = `${keyId}-type`;
      keyType.attr('id', keyTypeId);
      const keyBox = $('<div style="flex: 1; min-width: 0;">').appendTo(line1);
      const key = $('<input type="text" data-tb-condition-key>').attr('id', keyId).val(str(r.key)).appendTo(keyBox);
      const line2 = $('<div style="display: flex; gap: 6px; align-items: center; margin-top: 4px;">').appendTo(row);
      const operator = $('<select data-tb-condition-operator style="width: 140px; flex: none;">').appendTo(line2);
      for (const op of STATE_OPERATORS) option(operator, op, t(`${T}.operator.${op}`));
      operator.val((STATE_OPERATORS as readonly string[]).indexOf(r.operator) !== -1 ? r.operator : NEW_ROW.operator);
      const value = $('<input type="text" data-tb-condition-value style="width: 100%;">').appendTo(
        $('<div style="flex: 1; min-width: 0;">').appendTo(line2),
      );
      value.typedInput({ default: 'str', types: VALUE_TYPES.slice() });
      value.typedInput('type', (VALUE_TYPES as readonly string[]).indexOf(r.valueType) !== -1 ? r.valueType : 'str');
      value.typedInput('value', r.value === undefined || r.value === null ? '' : String(r.value));
      // The key as one chip, suggested from the server: the keys of the key type chosen, of the entities watched.
      oneKey(key);
      keysInput({
        input: `#${keyId}`,
        connection: () => E.input('connection').val() as string | undefined,
        source: keySource,
        kind: () => keyKind(keyType.val()),
        watch: [`#${keyTypeId}`, ...watch],
      });
      row.find('.tb-b-keys').css({ width: '100%' });
      // Which entities the keys are suggested from is said once, under Watch: not in every row.
      row.find('[data-tb-keys-source]').hide();
      row.find('[data-tb-keys-problem]').css({ margin: '2px 0 0 0' });
      keyType.on('change', changed);
      key.on('change', changed);
      operator.on('change', changed);
      value.on('change', changed);
      changed();
    },
    removeItem: changed,
    sortItems: changed,
    sortable: true,
    removable: true,
    height: 'auto',
    addButton: t(`${T}.label.addCondition`),
  });
  const saved = rowsOf(node.conditions) as Array<Partial<ConditionRow>>;
  for (const r of saved) list.editableList('addItem', r);
  // A new trigger on a value starts with one condition to fill in.
  if (!saved.length && conditionOf(live(node)) === 'value') list.editableList('addItem', {});
  changed();
  return { read };
}

// ---------------------------------------------------------------------------------------------------------------
// Which entities, in words
// ---------------------------------------------------------------------------------------------------------------

/** A profile name said in the plural ("thermostat" → "thermostats"), when it is one plain word that takes an s. */
function plural(name: string): string | undefined {
  return /^[a-z][a-z-]*[^sxzhy-]$/.test(name) && name !== 'default' ? `${name}s` : undefined;
}

/** What a query selects, for the sentence: "thermostats", "devices of profile meter", "the entities of the query". */
function queryWhat(q: unknown): string {
  const profiles = filterProfiles((q as { entityFilter?: unknown } | undefined)?.entityFilter);
  if (profiles.length === 1 && filterEntityType((q as { entityFilter?: unknown }).entityFilter) === 'DEVICE') {
    const p = plural(profiles[0]);
    if (p) return p;
  }
  // "all devices" reads "any of 28 devices".
  return entitiesLabel(q)?.replace(/^all /, '') ?? t(`${T}.sentence.entities`);
}

function parsed(text: unknown): unknown {
  try {
    return JSON.parse(String(text ?? ''));
  } catch {
    return undefined;
  }
}

const OUTPUTS = ['true', 'false'];

export default dialog(E, {
  declaration: TB_TRIGGER,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (choices, durations, the check box and the counts are checked by theirs).
  validators: {
    query: E.when(function () {
      return watchOf(live(this)) === 'query';
    }, query.query),
    target: targetValidator,
    conditions,
    severities: E.listOf(ALARM_SEVERITIES, `${T}.errors.severities`),
    // A silence counts the updates of keys it names (one at least).
    silenceKeys: E.all(
      E.keyList(`${T}.errors.silenceKeys`),
      E.when(
        function () {
          return conditionOf(live(this)) === 'silence';
        },
        function (v, opt) {
          return blank(v) ? t(`${T}.errors.silenceKeys`) : true;
        },
      ),
    ),
  },
  unnamed: label,
  outputLabels(i) {
    return t(`${T}.outputLabel.${OUTPUTS[i] ?? 'true'}`);
  },
  oneditprepare() {
    const node = this;
    const get = live(node);
    const sel = (prop: string) => `#${E.prefix}${prop}`;
    const connection = () => E.input('connection').val() as string | undefined;

    query.prepare(node);
    target.prepare();
    const queryText = () => String(E.input('query').val() ?? '');

    // Watching one entity: it is picked by name; the entities messages name: the message says where.
    const targetInput = E.input('target');
    E.input('watch').on('change', () => {
      const watch = watchOf(get);
      const type = String(targetInput.typedInput('type'));
      if (watch === 'entity' && type !== PICKED && type !== 'json') targetInput.typedInput('type', PICKED);
      if (watch === 'message' && (type === PICKED || type === 'json')) targetInput.typedInput('type', 'auto');
    });

    /** The entities whose keys the key boxes suggest: the one watched, else those of the query, else of a type. */
    const keySource = () => {
      const watch = watchOf(get);
      if (watch === 'entity') return target.fixed();
      if (watch === 'query') {
        const q = parsed(queryText()) as { entityFilter?: unknown } | undefined;
        const filter = q?.entityFilter;
        return { entityType: filterEntityType(filter) ?? 'DEVICE', ids: [], profiles: filterProfiles(filter) };
      }
      return { entityType: String(E.input('targetEntityType').val() || 'DEVICE'), ids: [] };
    };
    const watched = [sel('watch'), sel('target'), sel('targetEntityType'), sel('query'), sel('connection')];
    conditionList(node, keySource, watched);

    alarmTypeInput(sel('alarmType'), connection);
    keysInput({ input: sel('silenceKeys'), connection, source: keySource, kind: () => 'timeseries', watch: watched });

    // The severities: a check box each, kept as the comma-separated list the node saves (none ticked: any).
    const severities = E.input('severities');
    const boxes = $('[data-tb-severity]');
    const chosen = itemsOf(severities.val());
    boxes.each(function () {
      $(this).prop('checked', chosen.indexOf(String($(this).attr('data-tb-severity'))) !== -1);
    });
    boxes.on('change', () => {
      const on = ALARM_SEVERITIES.filter((s) => $(`[data-tb-severity="${s}"]`).prop('checked'));
      severities.val(on.join(',')).trigger('change');
    });

    // Which entities, for the sentence: a query's are counted on the server (its preview), a picked one named.
    const lookups = new Lookups(connection);
    let counted: { query: string; n: number | undefined } = { query: '', n: undefined };
    let asking = '';
    const asked = new Set<string>();
    const where = (): string => {
      const watch = watchOf(get);
      if (watch === 'message') return t(`${T}.sentence.onMessage`);
      if (watch === 'entity') {
        const fixed = target.fixed();
        if (str(get('targetType')) !== 'json' || !fixed.ids.length) return t(`${T}.sentence.onNoEntity`);
        if (fixed.ids.length > 1) return t(`${T}.sentence.onEntities`, { n: fixed.ids.length });
        const name = lookups.knownName(fixed.ids[0]);
        // Asked once per entity: one the server does not know stays named by its id.
        if (name === undefined && !asked.has(fixed.ids[0])) {
          asked.add(fixed.ids[0]);
          void lookups.names(fixed.entityType, fixed.ids).then(() => update());
        }
        return t(`${T}.sentence.onEntity`, { name: name ?? pickedEntity(str(get('target')))?.id ?? '' });
      }
      const type = str(get('queryType')) || 'json';
      if (type !== 'json') return t(`${T}.sentence.onQueryFrom`, { source: `${type}.${queryText()}` });
      const text = queryText();
      const what = queryWhat(parsed(text));
      if (counted.query !== text && asking !== text && connection()) {
        asking = text;
        void lookups.preview({ node: T, operation: 'entityCount', query: text }).then((answer) => {
          if (asking !== text) return;
          asking = '';
          counted = {
            query: text,
            n: answer.ok && typeof answer.value.payload === 'number' ? answer.value.payload : undefined,
          };
          update();
        });
      }
      const n = counted.query === text ? counted.n : undefined;
      if (n === undefined) return t(`${T}.sentence.onQueryUnknown`, { what });
      if (n === 0) return t(`${T}.sentence.onQueryNone`, { what });
      if (n === 1) return t(`${T}.sentence.onQueryOneNow`, { what });
      // The query's page is what is watched: more entities than it holds are left out.
      const size = Number((parsed(text) as { pageLink?: { pageSize?: unknown } } | undefined)?.pageLink?.pageSize);
      if (Number.isInteger(size) && size > 0 && size < n) return t(`${T}.sentence.onQueryFirst`, { n, size, what });
      return t(`${T}.sentence.onQuery`, { n, what });
    };

    const sentenceBox = $('[data-tb-sentence]');
    const update = E.showRows(() => {
      const watch = watchOf(get);
      const condition = conditionOf(get);
      sentenceBox.text(sentence(get, t, where()));
      return {
        '.tb-row-query': watch === 'query',
        '.tb-row-target': watch !== 'query',
        '.tb-row-id-type': watch !== 'query' && target.source() !== 'json',
        '.tb-row-message': watch === 'message',
        '.tb-row-value': condition === 'value',
        '.tb-row-join': condition === 'value' && rowsOf(get('conditions')).length > 1,
        '.tb-row-alarm': condition === 'alarm',
        '.tb-row-silence': condition === 'silence',
        '.tb-row-repeat': !blank(get('repeatEvery')),
      };
    }, [
      'watch',
      'target',
      'targetType',
      'targetEntityType',
      'query',
      'queryType',
      'connection',
      'condition',
      'conditions',
      'join',
      'alarmType',
      'severities',
      'alarmState',
      'silenceKeys',
      'silentFor',
      'holdFor',
      'holdOffFor',
      'repeatEvery',
      'repeatMax',
    ]);
    // Which entity is watched, as configured: picked by name, the message, JSON, msg., JSONata.
    target.describe($('[data-tb-target-tip]'), `${T}.entityIs.`);
    E.input('condition').on('change', () => {
      // A trigger switched to a value starts with one condition to fill in.
      const list = $('[data-tb-condition-list]');
      if (conditionOf(get) === 'value' && !rowsOf(get('conditions')).length) list.editableList('addItem', {});
    });
  },
  oneditsave() {
    E.trim(['alarmType', 'silentFor', 'holdFor', 'holdOffFor', 'repeatEvery', 'repeatMax', 'maxEntities']);
    query.close();
  },
  oneditcancel: query.close,
  oneditresize: query.resize,
});

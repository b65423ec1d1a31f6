/**
 * The key filters part: one row per key filter (key type and name, value type) with its predicate, and one
 * recursive widget for predicates, so COMPLEX "all of / any of" groups nest as deep as needed.
 */
import { ENTITY_KEY_VALUE_TYPES, type EntityKeyValueType } from '../../protocol/types';
import { impliedValueType } from '../../protocol/validate';
import {
  dynamicSourceTypes,
  KEY_TYPE_LABELS,
  KEY_TYPES_FOR,
  newKeyFilter,
  newPredicate,
  OPERATION_LABELS,
  PREDICATE_OPERATIONS,
  VALUE_TYPE_PREDICATES,
  type SimplePredicateType,
} from '../../query-model/schema';
import { bindable } from './bind';
import {
  button,
  checkbox,
  fromLocalInput,
  numberValue,
  pathText,
  removeButton,
  row,
  select,
  t,
  textInput,
  toLocalInput,
} from './dom';
import { keySuggest, markUnknownKey } from './keys';
import { isObj, str, type Ctx, type Path } from './model';
import { suggest } from './widgets';

const BASE: Path = ['keyFilters'];
type PredType = SimplePredicateType;

/** The predicate type a key filter's value type calls for (DATE_TIME compares epoch ms with NUMERIC). */
function predTypeOf(valueType: unknown): PredType {
  return VALUE_TYPE_PREDICATES[valueType as EntityKeyValueType] ?? 'NUMERIC';
}

/** A new simple predicate of a type. */
function simple(type: PredType): Record<string, unknown> {
  return newPredicate(type);
}

/** The predicate tree converted to another value type (a person changed the value type). */
function convert(p: unknown, type: PredType): unknown {
  if (!isObj(p)) return simple(type);
  if (p.type === 'COMPLEX') {
    return { ...p, predicates: Array.isArray(p.predicates) ? p.predicates.map((c) => convert(c, type)) : [] };
  }
  if (p.type === type) return p;
  const out: Record<string, unknown> = { ...p, type };
  if (!PREDICATE_OPERATIONS[type].includes(str(p.operation)))
    out.operation = (simple(type) as { operation: string }).operation;
  if (type === 'STRING') out.ignoreCase = p.ignoreCase === true;
  else delete out.ignoreCase;
  const v = isObj(p.value) ? { ...p.value } : { defaultValue: p.value };
  const d = v.defaultValue;
  if (type === 'STRING') v.defaultValue = d === null || d === undefined ? '' : String(d);
  else if (type === 'NUMERIC')
    v.defaultValue =
      typeof d === 'number'
        ? d
        : d === '' || d === null || d === undefined
          ? null
          : Number.isFinite(Number(d))
            ? Number(d)
            : null;
  else v.defaultValue = d === true || d === 'true';
  out.value = v;
  return out;
}

export function renderKeyFilters(ctx: Ctx): JQuery {
  const m = ctx.model;
  const section = $('<div class="tb-b-section" data-tb-part="keyFilters">');
  $('<div class="tb-b-title">').text(t('part.keyFilters')).appendTo(section);
  const filters = m.list(BASE);
  if (filters.length === 0) $('<div class="tb-b-hint">').text(t('noKeyFilters')).appendTo(section);
  if (filters.length > 1 || m.get(['keyFiltersOperation']) !== undefined) {
    const op = str(m.get(['keyFiltersOperation'])) || 'AND';
    const s = select(
      'keyFiltersOperation',
      [
        { value: 'AND', label: t('matchAll') },
        { value: 'OR', label: t('matchAny') },
      ],
      op,
    );
    s.on('change', () => {
      const v = String(s.val());
      // AND is what the server does without the field: only write it when it was there already.
      m.set(['keyFiltersOperation'], v === 'AND' && m.get(['keyFiltersOperation']) === undefined ? undefined : v);
    });
    section.append(row(t('match'), s));
  }
  filters.forEach((f, i) => section.append(keyFilterRow(ctx, f, i)));
  const actions = $('<div class="tb-b-actions">').appendTo(section);
  button('add-key-filter', t('addKeyFilter'), 'fa-plus')
    .on('click', () => {
      m.push(BASE, newKeyFilter());
      ctx.rerender();
    })
    .appendTo(actions);
  button('add-group', t('addGroup'), 'fa-object-group')
    .on('click', () => {
      m.push(BASE, { ...newKeyFilter(), predicate: newPredicate('COMPLEX') });
      ctx.rerender();
    })
    .appendTo(actions);
  return section;
}

function keyFilterRow(ctx: Ctx, f: unknown, i: number): JQuery {
  const m = ctx.model;
  const base: Path = [...BASE, i];
  const kf = isObj(f) ? f : {};
  const key = isObj(kf.key) ? kf.key : {};
  const box = $('<div class="tb-b-kf">').attr('data-tb-key-filter', i);
  const line = $('<div class="tb-b-pred">').appendTo(box);
  const keyType = select(
    pathText([...base, 'key', 'type']),
    KEY_TYPES_FOR.keyFilters.map((v) => ({ value: v, label: KEY_TYPE_LABELS[v] })),
    str(key.type),
  ).appendTo(line);
  keyType.on('change', () => m.set([...base, 'key', 'type'], String(keyType.val())));
  const keyName = textInput(pathText([...base, 'key', 'key']), key.key, t('keyName')).appendTo(line);
  keyName.on('change input', () => m.set([...base, 'key', 'key'], String(keyName.val() ?? '')));
  suggest(
    keyName,
    keySuggest(ctx, () => String(keyType.val())),
  );
  markUnknownKey(
    ctx,
    keyName,
    () => String(keyType.val()),
    (name) => t('unknownKey', { name }),
  );
  const valueType = str(kf.valueType);
  const vtOptions: Array<{ value: string; label: string }> = ENTITY_KEY_VALUE_TYPES.map((v) => ({
    value: v,
    label: t(`valueType.${v}`),
  }));
  // Without a value type the runtime takes it from the predicate: say so rather than show a wrong one.
  if (valueType === '') vtOptions.unshift({ value: '', label: t('valueType.auto') });
  const vt = select(pathText([...base, 'valueType']), vtOptions, valueType).appendTo(line);
  vt.on('change', () => {
    const next = String(vt.val());
    m.set([...base, 'valueType'], next);
    m.set([...base, 'predicate'], convert(m.get([...base, 'predicate']), predTypeOf(next)));
    ctx.rerender();
  });
  removeButton('remove-key-filter', t('remove'))
    .on('click', () => {
      m.removeAt(BASE, i);
      ctx.rerender();
    })
    .appendTo(line);
  box.append(predicate(ctx, [...base, 'predicate'], valueType || predTypeFromTree(kf.predicate), undefined));
  return box;
}

/** A value type for a filter that has none: the one the runtime implies from the predicate, else NUMERIC. */
function predTypeFromTree(p: unknown): string {
  return impliedValueType(p) ?? 'NUMERIC';
}

/** One predicate: a COMPLEX group (recursive) or a simple comparison. `remove` is set inside a group. */
function predicate(ctx: Ctx, path: Path, valueType: string, remove: (() => void) | undefined): JQuery {
  const m = ctx.model;
  const p = m.get(path);
  const type = predTypeOf(valueType);
  if (isObj(p) && p.type === 'COMPLEX') {
    const group = $('<div class="tb-b-group">').attr('data-tb-group', pathText(path));
    const head = $('<div class="tb-b-pred">').appendTo(group);
    const op = select(pathText([...path, 'operation']), opOptions('COMPLEX'), str(p.operation)).appendTo(head);
    op.on('change', () => m.set([...path, 'operation'], String(op.val())));
    if (remove) removeButton('remove-group', t('remove')).on('click', remove).appendTo(head);
    const children = Array.isArray(p.predicates) ? p.predicates : [];
    children.forEach((_c, j) => {
      group.append(
        predicate(ctx, [...path, 'predicates', j], valueType, () => {
          m.removeAt([...path, 'predicates'], j);
          ctx.rerender();
        }),
      );
    });
    const actions = $('<div class="tb-b-actions">').appendTo(group);
    button('add-condition', t('addCondition'), 'fa-plus')
      .on('click', () => {
        m.push([...path, 'predicates'], simple(type));
        ctx.rerender();
      })
      .appendTo(actions);
    button('add-group', t('addGroup'), 'fa-object-group')
      .on('click', () => {
        m.push([...path, 'predicates'], newPredicate('COMPLEX', type));
        ctx.rerender();
      })
      .appendTo(actions);
    return group;
  }
  const pred = isObj(p) ? p : {};
  const own = (str(pred.type) || type) as PredType;
  const line = $('<div class="tb-b-pred">').attr('data-tb-predicate', pathText(path));
  const op = select(pathText([...path, 'operation']), opOptions(own), str(pred.operation)).appendTo(line);
  op.on('change', () => m.set([...path, 'operation'], String(op.val())));
  const bare = !isObj(pred.value);
  const value = isObj(pred.value) ? pred.value : {};
  const valuePath: Path = bare ? [...path, 'value'] : [...path, 'value', 'defaultValue'];
  const current = bare ? pred.value : value.defaultValue;
  const dyn = isObj(value.dynamicValue) ? value.dynamicValue : undefined;
  // Reads as a sentence: "> [fixed value] 25" or "> [tenant attribute] tempThreshold, if missing: 25".
  const sources = dynamicSourceTypes(ctx.mode, ctx.live) as readonly string[];
  const source = dyn ? str(dyn.sourceType) : '';
  const srcSelect = select(
    pathText([...path, 'value', 'dynamicValue', 'sourceType']),
    [{ value: '', label: t('source.fixed') }, ...sources.map((s) => ({ value: s, label: t(`source.${s}`) }))],
    source,
  ).appendTo(line);
  srcSelect.on('change', () => {
    const s = String(srcSelect.val() ?? '');
    if (s === '') {
      m.delete([...path, 'value', 'dynamicValue']);
    } else {
      if (bare) m.set([...path, 'value'], { defaultValue: pred.value === undefined ? null : pred.value });
      m.set([...path, 'value', 'dynamicValue'], {
        ...(dyn ?? {}),
        sourceType: s,
        sourceAttribute: dyn ? str(dyn.sourceAttribute) : '',
      });
    }
    ctx.rerender();
  });
  if (dyn) {
    const attr = textInput(
      pathText([...path, 'value', 'dynamicValue', 'sourceAttribute']),
      dyn.sourceAttribute,
      t('sourceAttribute'),
    ).appendTo(line);
    attr.on('change input', () =>
      m.set([...path, 'value', 'dynamicValue', 'sourceAttribute'], String(attr.val() ?? '')),
    );
    $('<span>').text(t('ifMissing')).appendTo(line);
  }
  line.append(
    bindable(ctx, { at: valuePath, field: pathText(valuePath) }, () =>
      valueControl(ctx, valuePath, own, valueType, current),
    ),
  );
  if (own === 'STRING') {
    const ic = checkbox(pathText([...path, 'ignoreCase']), pred.ignoreCase === true, t('ignoreCase')).appendTo(line);
    ic.find('input').on('change', (e) => m.set([...path, 'ignoreCase'], $(e.target).prop('checked') === true));
  }
  if (remove) removeButton('remove-condition', t('remove')).on('click', remove).appendTo(line);
  return line;
}

function opOptions(type: keyof typeof PREDICATE_OPERATIONS): Array<{ value: string; label: string }> {
  const ops = PREDICATE_OPERATIONS[type] ?? PREDICATE_OPERATIONS.NUMERIC;
  return ops.map((v) => ({ value: v, label: OPERATION_LABELS[type]?.[v] ?? v }));
}

function valueControl(ctx: Ctx, path: Path, type: PredType, valueType: string, current: unknown): JQuery {
  const m = ctx.model;
  const field = pathText(path);
  if (type === 'BOOLEAN') {
    const s = select(
      field,
      [
        { value: 'true', label: t('true') },
        { value: 'false', label: t('false') },
      ],
      current === false ? 'false' : current === true ? 'true' : str(current),
    );
    s.on('change', () => m.set(path, String(s.val()) === 'true'));
    return s;
  }
  if (type === 'NUMERIC' && valueType === 'DATE_TIME') {
    const i = $('<input type="datetime-local" class="tb-b-text">')
      .attr('data-tb-field', field)
      .val(toLocalInput(current));
    i.on('change', () => m.set(path, fromLocalInput(String(i.val() ?? '')) ?? null));
    return i;
  }
  if (type === 'NUMERIC') {
    const i = textInput(field, current, t('number')).addClass('tb-b-num');
    i.on('change input', () => {
      const v = numberValue(String(i.val() ?? ''));
      m.set(path, v === undefined ? null : v);
    });
    return i;
  }
  const i = textInput(field, current, t('text'));
  i.on('change input', () => m.set(path, String(i.val() ?? '')));
  return i;
}

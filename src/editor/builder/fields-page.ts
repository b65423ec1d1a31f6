/**
 * The parts for what comes back and how much of it: entity fields, latest values and alarm fields as chips
 * (with a key type selector where several types apply), and the page (size, number, sort key and direction,
 * text search, and "dynamic" for live entity tables).
 */
import { SORT_DIRECTIONS, type EntityKeyType } from '../../protocol/types';
import { KEY_TYPE_LABELS, KEY_TYPES_FOR, MODE_SCHEMA, type FieldList } from '../../query-model/schema';
import { bindable } from './bind';
import { checkbox, intValue, row, select, t, textInput } from './dom';
import { keyNames, keySuggest, markUnknownKey } from './keys';
import { isObj, str, type Ctx, type Path } from './model';
import { chips, suggest } from './widgets';

export function renderFields(ctx: Ctx): JQuery {
  const section = $('<div class="tb-b-section" data-tb-part="fields">');
  $('<div class="tb-b-title">').text(t('part.fields')).appendTo(section);
  for (const name of MODE_SCHEMA[ctx.mode].fieldLists)
    section.append(row(t(`list.${name}`), keyChips(ctx, [name], KEY_TYPES_FOR[name as FieldList])));
  return section;
}

/** Keys `{type, key}` as chips; a key type selector before the entry box when the list takes several types. */
function keyChips(ctx: Ctx, path: Path, types: readonly EntityKeyType[]): JQuery {
  const m = ctx.model;
  const items = m.list(path);
  const field = path.join('.');
  let typeSelect: JQuery | undefined;
  if (types.length > 1) {
    typeSelect = select(
      `${field}.type`,
      types.map((v) => ({ value: v, label: KEY_TYPE_LABELS[v] })),
      types[0],
    );
  }
  const chosenType = () => (typeSelect ? String(typeSelect.val()) : types[0]);
  return chips({
    field,
    items: items.map((k) => {
      const key = isObj(k) ? k : {};
      const type = str(key.type);
      return { value: str(key.key), tag: types.length > 1 || type !== types[0] ? keyTypeLabel(type) : undefined };
    }),
    before: typeSelect,
    placeholder: t('addKey'),
    suggest: keySuggest(ctx, chosenType),
    known: async (i) => {
      const key = items[i];
      if (!isObj(key)) return null;
      const names = await keyNames(ctx, str(key.type));
      return names && names.length ? names.includes(str(key.key)) : null;
    },
    add: (v) => {
      m.push(path, { type: chosenType(), key: v });
      ctx.rerender();
    },
    remove: (i) => {
      m.removeAt(path, i);
      ctx.rerender();
    },
  });
}

/** A key type's label; a type the tables do not know is shown as it is. */
export function keyTypeLabel(type: string): string {
  return (KEY_TYPE_LABELS as Record<string, string>)[type] ?? type;
}

function showDynamic(ctx: Ctx): boolean {
  return ctx.live && ctx.mode === 'entityData';
}

export function renderPage(ctx: Ctx): JQuery {
  const m = ctx.model;
  const section = $('<div class="tb-b-section" data-tb-part="page">');
  $('<div class="tb-b-title">').text(t('part.page')).appendTo(section);
  const size = bindable(ctx, { at: ['pageLink', 'pageSize'], field: 'pageLink.pageSize' }, () => {
    const i = textInput('pageLink.pageSize', m.get(['pageLink', 'pageSize']), '100').addClass('tb-b-num');
    return i.on('change input', () => m.set(['pageLink', 'pageSize'], intValue(String(i.val() ?? ''))));
  });
  const page = bindable(ctx, { at: ['pageLink', 'page'], field: 'pageLink.page' }, () => {
    const i = textInput('pageLink.page', m.get(['pageLink', 'page']), '0').addClass('tb-b-num');
    return i.on('change input', () => m.set(['pageLink', 'page'], intValue(String(i.val() ?? ''))));
  });
  section.append(row(t('pageSize'), size, $('<span>').text(t('pageNumber')), page));

  const sort = m.get(['pageLink', 'sortOrder']);
  const sortKey = isObj(sort) && isObj(sort.key) ? sort.key : {};
  const typeSel = select(
    'pageLink.sortOrder.key.type',
    [
      { value: '', label: t('noSort') },
      ...MODE_SCHEMA[ctx.mode].sortKeyTypes.map((v) => ({ value: v, label: KEY_TYPE_LABELS[v] })),
    ],
    isObj(sort) ? str(sortKey.type) : '',
  );
  typeSel.on('change', () => {
    const v = String(typeSel.val() ?? '');
    if (v === '') m.delete(['pageLink', 'sortOrder']);
    else {
      m.set(['pageLink', 'sortOrder', 'key', 'type'], v);
      if (m.get(['pageLink', 'sortOrder', 'key', 'key']) === undefined)
        m.set(['pageLink', 'sortOrder', 'key', 'key'], '');
      if (m.get(['pageLink', 'sortOrder', 'direction']) === undefined)
        m.set(['pageLink', 'sortOrder', 'direction'], 'ASC');
    }
    ctx.rerender();
  });
  const controls: JQuery[] = [typeSel];
  if (isObj(sort)) {
    const keyName = bindable(
      ctx,
      { at: ['pageLink', 'sortOrder', 'key', 'key'], field: 'pageLink.sortOrder.key.key' },
      () => {
        const i = textInput('pageLink.sortOrder.key.key', sortKey.key, t('keyName'));
        i.on('change input', () => m.set(['pageLink', 'sortOrder', 'key', 'key'], String(i.val() ?? '')));
        suggest(
          i,
          keySuggest(ctx, () => String(typeSel.val())),
        );
        markUnknownKey(
          ctx,
          i,
          () => String(typeSel.val()),
          (name) => t('unknownKey', { name }),
        );
        return i;
      },
    );
    const dir = select(
      'pageLink.sortOrder.direction',
      SORT_DIRECTIONS.map((v) => ({ value: v, label: t(`direction.${v}`) })),
      str(sort.direction),
    );
    dir.on('change', () => m.set(['pageLink', 'sortOrder', 'direction'], String(dir.val())));
    controls.push(keyName, dir);
  }
  section.append(row(t('sortBy'), ...controls));

  const search = bindable(ctx, { at: ['pageLink', 'textSearch'], field: 'pageLink.textSearch' }, () => {
    const i = textInput('pageLink.textSearch', m.get(['pageLink', 'textSearch']), t('textSearchPlaceholder')).addClass(
      'tb-b-wide',
    );
    return i.on('change input', () => {
      const v = String(i.val() ?? '');
      m.set(['pageLink', 'textSearch'], v === '' ? undefined : v);
    });
  });
  section.append(row(t('textSearch'), search));

  if (showDynamic(ctx)) {
    const dyn = checkbox('pageLink.dynamic', m.get(['pageLink', 'dynamic']) === true, t('dynamic'));
    dyn.find('input').on('change', (e) => m.set(['pageLink', 'dynamic'], $(e.target).prop('checked') === true));
    section.append(row('', dyn));
  }
  return section;
}

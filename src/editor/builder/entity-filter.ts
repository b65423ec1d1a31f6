/**
 * The entity filter part: a type drop-down and, for the chosen type, the fields the schema table lists
 * (one table for every filter type, no form per type).
 */
import {
  ALIAS_ENTITY_TYPES,
  ENTITY_FILTER_TYPES,
  QUERYABLE_ENTITY_TYPES,
  type EntityFilterType,
} from '../../protocol/types';
import {
  ENTITY_FILTER_SCHEMA,
  entityTypeName,
  newEntityFilter,
  visibleFields,
  type FieldSpec,
} from '../../query-model/schema';
import { bindable, type BindSpec } from './bind';
import { button, checkbox, intValue, removeButton, row, select, t, textInput } from './dom';
import { isObj, str, type Ctx, type Path } from './model';
import { chips, completions, entityPicker, fromList, isUuid } from './widgets';

const BASE: Path = ['entityFilter'];
const COMMON_RELATION_TYPES = ['Contains', 'Manages', 'Uses', 'Created', 'ToEdge'];

/** Filters the user left while switching types, to bring them back if they switch back (this dialog only). */
const stash = new WeakMap<Ctx['model'], Map<string, Record<string, unknown>>>();

/** "Device", "Entity view": an entity type's name for a select. */
export function typeLabel(type: string): string {
  const n = entityTypeName(type, 1);
  return n.charAt(0).toUpperCase() + n.slice(1);
}

function entityTypeOptions(): Array<{ value: string; label: string }> {
  return QUERYABLE_ENTITY_TYPES.map((v) => ({ value: v, label: typeLabel(v) }));
}

export function renderEntityFilter(ctx: Ctx): JQuery {
  const m = ctx.model;
  const section = $('<div class="tb-b-section" data-tb-part="entityFilter">');
  $('<div class="tb-b-title">').text(t('part.entityFilter')).appendTo(section);
  const filter = m.get(BASE);
  const optional = ctx.mode === 'alarmCount';
  const type = isObj(filter) ? str(filter.type) : '';
  const options: Array<{ value: string; label: string }> = ENTITY_FILTER_TYPES.map((v) => ({
    value: v,
    label: ENTITY_FILTER_SCHEMA[v].label,
  }));
  if (optional) options.unshift({ value: '', label: t('noEntityFilter') });
  const typeSelect = select('entityFilter.type', options, type);
  typeSelect.on('change', () => {
    changeType(ctx, String(typeSelect.val() ?? ''));
    ctx.rerender();
  });
  section.append(row(t('filterType'), typeSelect));
  if (filter !== undefined && !isObj(filter)) return section;
  const spec = ENTITY_FILTER_SCHEMA[type as keyof typeof ENTITY_FILTER_SCHEMA];
  if (!spec || !isObj(filter)) return section;
  for (const field of visibleFields(spec, filter)) {
    const bind = bindSpec(field);
    const control = bind
      ? bindable(ctx, bind, () => fieldControl(ctx, field, filter))
      : fieldControl(ctx, field, filter);
    const r = row(field.label + (field.required && !field.emptyOk ? ' *' : ''), control);
    // the row's own controls: a control may be a .tb-b-controls of its own (an entity: its type and the picker)
    if (field.help) $('<div class="tb-b-hint">').text(field.help).appendTo(r.children('.tb-b-controls'));
    section.append(r);
  }
  return section;
}

/** The kinds of field whose value can come from the message: the leaf, by kind (the schema table's `kind`). */
const BINDABLE: Partial<Record<FieldSpec['kind'], 'scalar' | 'list' | 'id'>> = {
  entityType: 'scalar',
  enum: 'scalar',
  text: 'scalar',
  int: 'scalar',
  entityTypes: 'list',
  profiles: 'list',
  entityIds: 'list',
  customer: 'id',
  // 'entity' (a root or single entity): its id is bound inside the control, beside the entity type.
};

/** How a field of the entity filter switches to "from the message" (undefined: it does not). */
function bindSpec(field: FieldSpec): BindSpec | undefined {
  const how = BINDABLE[field.kind];
  if (!how) return undefined;
  const at: Path = [...BASE, field.name];
  const name = `entityFilter.${field.name}`;
  if (how === 'id')
    return {
      at: [...at, 'id'],
      field: `${name}.id`,
      holder: { path: at, value: (ph) => ({ entityType: 'CUSTOMER', id: ph }) },
    };
  return { at, field: name, list: how === 'list' };
}

/** Switches the filter type: fields of the same name are carried over, the rest start from the table's defaults. */
function changeType(ctx: Ctx, type: string): void {
  const m = ctx.model;
  const old = m.get(BASE);
  let kept = stash.get(m);
  if (!kept) {
    kept = new Map();
    stash.set(m, kept);
  }
  if (isObj(old) && typeof old.type === 'string')
    kept.set(old.type, JSON.parse(JSON.stringify(old)) as Record<string, unknown>);
  if (type === '') {
    m.delete(BASE);
    return;
  }
  const before = kept.get(type);
  if (before) {
    m.set(BASE, before);
    return;
  }
  const next = newEntityFilter(type as EntityFilterType);
  // Fields of the same name carry over (an entity type, a root entity, a direction...).
  if (isObj(old)) {
    for (const field of ENTITY_FILTER_SCHEMA[type as EntityFilterType].fields) {
      if (old[field.name] !== undefined) next[field.name] = old[field.name];
    }
  }
  m.set(BASE, next);
}

function fieldControl(ctx: Ctx, field: FieldSpec, filter: Record<string, unknown>): JQuery {
  const m = ctx.model;
  const path: Path = [...BASE, field.name];
  const name = `entityFilter.${field.name}`;
  const value = filter[field.name];
  switch (field.kind) {
    case 'entityType': {
      const s = select(name, entityTypeOptions(), str(value));
      s.on('change', () => {
        m.set(path, String(s.val()));
        ctx.rerender();
      });
      return s;
    }
    case 'enum': {
      const opts = (field.options ?? []).map((v) => ({ value: v, label: v }));
      if (!field.required) opts.unshift({ value: '', label: t('none') });
      const s = select(name, opts, str(value));
      s.on('change', () => {
        const v = String(s.val() ?? '');
        m.set(path, v === '' ? undefined : v);
        ctx.rerender();
      });
      return s;
    }
    case 'text': {
      const i = textInput(name, value).addClass('tb-b-wide');
      i.on('change input', () => {
        const v = String(i.val() ?? '');
        m.set(path, v === '' && !field.required ? undefined : v);
      });
      return i;
    }
    case 'int': {
      const i = textInput(name, value).addClass('tb-b-num');
      i.on('change input', () => m.set(path, intValue(String(i.val() ?? ''))));
      return i;
    }
    case 'bool': {
      const c = checkbox(name, value === true, t('yes'));
      c.find('input').on('change', (e) => {
        m.set(path, $(e.target).prop('checked') === true);
        ctx.rerender();
      });
      return c;
    }
    case 'entityTypes':
      return entityTypeChips(ctx, path, name);
    case 'profiles': {
      const profileType = field.profileType ?? 'DEVICE';
      const list = Array.isArray(value) ? value : [];
      return chips({
        field: name,
        items: list.map((v) => ({ value: str(v) })),
        placeholder: t('addProfile'),
        suggest: async (text) => completions(await ctx.lookups.profiles(profileType, text)),
        known: async (i) => {
          const all = await ctx.lookups.profiles(profileType, '');
          return all ? all.includes(str(list[i])) : null;
        },
        add: (v) => {
          m.push(path, v);
          ctx.rerender();
        },
        remove: (i) => {
          m.removeAt(path, i);
          ctx.rerender();
        },
      });
    }
    case 'entityIds':
      return entityIdChips(ctx, path, name, () => str(filter[field.typeFrom ?? 'entityType']) || 'DEVICE');
    case 'entity':
      return aliasEntity(ctx, path, name, value);
    case 'customer':
      return entityPicker({
        field: name,
        entityType: () => 'CUSTOMER',
        id: isObj(value) ? value.id : value,
        entities: (et, s) => ctx.lookups.entities(et, s),
        names: (et, ids) => ctx.lookups.names(et, ids),
        placeholder: t('anyCustomer'),
        change: (id) => m.set(path, id === undefined ? undefined : { entityType: 'CUSTOMER', id }),
      });
    case 'relationFilters':
      return relationFilters(ctx, path, name);
    default:
      return $('<span>').text(JSON.stringify(value));
  }
}

function entityTypeChips(ctx: Ctx, path: Path, name: string): JQuery {
  const list = ctx.model.list(path);
  return chips({
    field: name,
    items: list.map((v) => ({ value: str(v), label: typeLabel(str(v)) })),
    placeholder: t('addEntityType'),
    suggest: fromList(() => QUERYABLE_ENTITY_TYPES),
    add: (v) => {
      ctx.model.push(path, v.toUpperCase());
      ctx.rerender();
    },
    remove: (i) => {
      ctx.model.removeAt(path, i);
      ctx.rerender();
    },
  });
}

/** Entity ids as chips with their names (looked up), and a picker to add more. */
function entityIdChips(ctx: Ctx, path: Path, name: string, entityType: () => string): JQuery {
  const ids = ctx.model.list(path).map(str);
  const labels = new Map<string, string>();
  const box = chips({
    field: name,
    items: ids.map((v) => ({ value: v })),
    placeholder: t('addEntity'),
    suggest: async (text) => {
      const list = await ctx.lookups.entities(entityType(), text);
      if (!list) return null;
      for (const e of list) labels.set(e.id.id, e.name);
      return list.map((e) => ({ value: e.id.id, label: e.name }));
    },
    add: (v) => {
      ctx.model.push(path, v);
      ctx.rerender();
    },
    remove: (i) => {
      ctx.model.removeAt(path, i);
      ctx.rerender();
    },
  });
  const known = ids.filter(isUuid);
  if (known.length) {
    void ctx.lookups.names(entityType(), known).then((names) => {
      box.find('.tb-b-chip').each((_i, el) => {
        const id = String($(el).attr('data-tb-chip'));
        const label = names.get(id);
        if (label !== undefined) $(el).children('span').first().text(label);
      });
    });
  }
  return box;
}

/** An AliasEntityId: an entity type (or an alias such as the current user) and, for a real type, the entity. */
function aliasEntity(ctx: Ctx, path: Path, name: string, value: unknown): JQuery {
  const m = ctx.model;
  const v = isObj(value) ? value : {};
  const type = str(v.entityType);
  const options = [...entityTypeOptions(), ...ALIAS_ENTITY_TYPES.map((x) => ({ value: x, label: t(`alias.${x}`) }))];
  if (type === '') options.unshift({ value: '', label: t('choose') });
  const wrap = $('<span class="tb-b-controls">');
  const s = select(`${name}.entityType`, options, type).appendTo(wrap);
  s.on('change', () => {
    const nt = String(s.val() ?? '');
    const alias = (ALIAS_ENTITY_TYPES as readonly string[]).includes(nt);
    const next: Record<string, unknown> = { ...v, entityType: nt };
    if (alias && nt !== 'CURRENT_CUSTOMER') delete next.id;
    else if (!alias && (ALIAS_ENTITY_TYPES as readonly string[]).includes(type)) next.id = '';
    m.set(path, nt === '' ? undefined : next);
    ctx.rerender();
  });
  const alias = (ALIAS_ENTITY_TYPES as readonly string[]).includes(type);
  if (type !== '' && (!alias || type === 'CURRENT_CUSTOMER')) {
    wrap.append(
      bindable(ctx, { at: [...path, 'id'], field: `${name}.id` }, () =>
        entityPicker({
          field: `${name}.id`,
          entityType: () => (alias ? 'CUSTOMER' : type),
          id: v.id,
          entities: (et, q) => ctx.lookups.entities(et, q),
          names: (et, ids) => ctx.lookups.names(et, ids),
          placeholder: alias ? t('fallbackCustomer') : undefined,
          change: (id) => {
            if (id === undefined && alias) m.delete([...path, 'id']);
            else m.set([...path, 'id'], id ?? '');
          },
        }),
      ),
    );
  }
  return wrap;
}

function relationFilters(ctx: Ctx, path: Path, name: string): JQuery {
  const m = ctx.model;
  const wrap = $('<div class="tb-b-relfilters">').css('flex', '1');
  m.list(path).forEach((item, i) => {
    const f = isObj(item) ? item : {};
    const p: Path = [...path, i];
    const line = $('<div class="tb-b-pred">').attr('data-tb-relation-filter', i).appendTo(wrap);
    const rt = textInput(`${name}.${i}.relationType`, f.relationType, t('relationType')).appendTo(line);
    rt.on('change input', () => {
      const val = String(rt.val() ?? '');
      m.set([...p, 'relationType'], val === '' ? undefined : val);
    });
    rt.autoComplete({
      minLength: 0,
      search: (val, done) =>
        done(
          COMMON_RELATION_TYPES.filter((x) => x.toLowerCase().includes(val.toLowerCase())).map((x) => ({
            value: x,
            label: x,
          })),
        ),
    });
    line.append(entityTypeChips(ctx, [...p, 'entityTypes'], `${name}.${i}.entityTypes`));
    const neg = checkbox(`${name}.${i}.negate`, f.negate === true, t('negate')).appendTo(line);
    neg.find('input').on('change', (e) => m.set([...p, 'negate'], $(e.target).prop('checked') === true));
    removeButton('remove-relation-filter', t('remove'))
      .on('click', () => {
        m.removeAt(path, i);
        ctx.rerender();
      })
      .appendTo(line);
  });
  button('add-relation-filter', t('addRelationFilter'), 'fa-plus')
    .on('click', () => {
      m.push(path, { relationType: 'Contains', entityTypes: [] });
      ctx.rerender();
    })
    .appendTo(wrap);
  return wrap;
}

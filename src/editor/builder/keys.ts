/**
 * Key names for the pickers: time-series and attribute keys of the entities the filter selects (from the
 * server, through the connection), entity fields of the filter's entity type and alarm fields (from the
 * schema table). Shared by the key filters, the field chips and the sort key.
 */
import { ALARM_FIELD_NAMES, entityFieldNames, filterEntityType } from '../../query-model/schema';
import type { KeysAnswer } from './lookups';
import { isObj } from './model';
import type { Ctx } from './model';
import type { Suggest } from './widgets';

const SCOPE_OF: Readonly<Record<string, string>> = {
  SERVER_ATTRIBUTE: 'SERVER_SCOPE',
  SHARED_ATTRIBUTE: 'SHARED_SCOPE',
  CLIENT_ATTRIBUTE: 'CLIENT_SCOPE',
};

function namesOf(keys: KeysAnswer, type: string): string[] {
  if (type === 'TIME_SERIES') return keys.timeseries;
  const scope = SCOPE_OF[type];
  if (scope) return keys.attributes[scope] ?? [];
  const all = new Set<string>();
  for (const s of Object.keys(keys.attributes)) for (const k of keys.attributes[s] ?? []) all.add(k);
  return [...all].sort();
}

/** Key names of one key type; `null` when the server cannot be asked (then anything may be typed). */
export async function keyNames(ctx: Ctx, type: string): Promise<string[] | null> {
  const filter = ctx.model.get(['entityFilter']);
  if (type === 'ENTITY_FIELD') return [...entityFieldNames(filter)];
  if (type === 'ALARM_FIELD') return [...ALARM_FIELD_NAMES];
  const keys = await ctx.lookups.keys(filterEntityType(filter) ?? 'DEVICE', filterProfiles(filter));
  return keys ? namesOf(keys, type) : null;
}

/** Suggestions of key names for the key type that `type()` returns when the user types. */
export function keySuggest(ctx: Ctx, type: () => string): Suggest {
  return async (text) => {
    const names = await keyNames(ctx, type());
    if (!names) return null;
    const s = text.trim().toLowerCase();
    return names.filter((n) => n.toLowerCase().includes(s)).map((n) => ({ value: n, label: n }));
  };
}

/** Marks a key name box when the server knows the key type's names and this one is not among them. */
export function markUnknownKey(ctx: Ctx, input: JQuery, type: () => string, message: (name: string) => string): void {
  const check = () => {
    const name = String(input.val() ?? '').trim();
    input.removeClass('tb-b-unknown-input').removeAttr('title');
    if (name === '') return;
    void keyNames(ctx, type()).then((names) => {
      if (names && names.length && !names.includes(name) && String(input.val() ?? '').trim() === name) {
        input.addClass('tb-b-unknown-input').attr('title', message(name));
      }
    });
  };
  input.on('change', check);
  check();
}

/** Profile names a filter restricts to (for key suggestions of those profiles only). */
export function filterProfiles(filter: unknown): string[] {
  if (!isObj(filter)) return [];
  for (const k of ['deviceTypes', 'assetTypes', 'entityViewTypes', 'edgeTypes']) {
    const v = filter[k];
    if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string' && x !== '');
  }
  return [];
}

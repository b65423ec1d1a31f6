/**
 * A TypedInput setting that names one entity, with an "entity picked by name" type of the dialog's own: the device
 * actions' `target` (device-target.ts) and tb-alarm-action's `originator`.
 *
 * Picked by name, the entity is kept as the node always kept it: `<prop>Type` json, `<prop>` `{"entityType", "id"}`
 * (the runtime knows no other type, and a json value that is one such entity opens on the picker, so older flows
 * do too). The picker is the query builder's entity picker, in a row under the TypedInput; while the type is
 * picked the TypedInput has no value of its own, so a missing or wrong entity is marked on the picker's name box,
 * not on the type box.
 */
import { entityJsonInput } from '../builder/dialogs';
import { t as builderText } from '../builder/dom';
import type { TypeHelpers } from './for-type';

/** The TypedInput's type for an entity picked by name: the dialog's alone, kept as `json`. */
export const PICKED = 'entity';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Is `text` (a json value) one entity the picker can show: `{"entityType": <one of types>, "id": "…"}` and nothing
 * else?
 */
export function isPickedEntity(text: string, types: readonly string[]): boolean {
  const e = pickedEntity(text);
  return !!e && types.includes(e.entityType);
}

/** The entity of a json value that is exactly `{"entityType": "…", "id": "…"}`, else undefined. */
export function pickedEntity(text: string): { entityType: string; id: string } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  return Object.keys(o).length === 2 && typeof o.entityType === 'string' && typeof o.id === 'string'
    ? { entityType: o.entityType, id: o.id }
    : undefined;
}

/**
 * The invalid mark of a picked entity goes on the name box: Node-RED marks the TypedInput's box (`input-error` on
 * its container), which while picked shows only the type. The row follows the container (entityJsonInput puts it
 * there), so a sibling rule moves the mark without touching Node-RED's validation.
 */
const CSS = `
.red-ui-editor .red-ui-typedInput-container.tb-picked.input-error { border-color: var(--red-ui-form-input-border-color) !important; }
.red-ui-editor .red-ui-typedInput-container.tb-picked.input-error ~ .tb-b-entity-json input.tb-b-text { border-color: var(--red-ui-form-input-border-error-color) !important; }
`;

function ensureStyle(): void {
  if (!document.getElementById('tb-picked-style')) $('<style id="tb-picked-style">').text(CSS).appendTo('head');
}

export interface PickedEntityOptions {
  /** The setting (`target`, `originator`); its source is kept in the hidden `<prop>Type` input. */
  prop: string;
  /** The sources the node keeps, 'auto' (the message) first: the picked type goes after it. */
  sources: readonly string[];
  /** The label of 'auto' (where the message holds the entity). */
  autoLabel: string;
  /** The entity types the picker offers. */
  entityTypes: readonly string[];
  connection: () => string | undefined;
}

/**
 * The TypedInput: the message, an entity picked by name (label and icon say so; only for a single entity of the
 * node's types), then the node's other sources. Its type is mirrored into the hidden `<prop>Type` input as the node
 * keeps it (the picker's as json), so the validators and the runtime see the values they always did. Switching
 * between the picker and JSON carries the entity over (JSON that is empty or not JSON gets it; JSON holding one
 * entity gives it to the picker).
 */
export function pickedEntityInput(E: TypeHelpers, o: PickedEntityOptions): JQuery {
  ensureStyle();
  const el = E.input(o.prop);
  const kept = E.input(`${o.prop}Type`);
  const stored = String(kept.val() || 'auto');
  const label = builderText(
    o.entityTypes.length === 1 && o.entityTypes[0] === 'DEVICE' ? 'pickedByName.device' : 'pickedByName.entity',
  );
  const others = o.sources.filter((s) => s !== 'auto');
  const types = [
    { value: 'auto', label: o.autoLabel, hasValue: false },
    { value: PICKED, label, icon: 'fa fa-crosshairs', hasValue: false },
    ...others,
  ];
  const initial =
    stored === 'json' && isPickedEntity(String(el.val() ?? ''), o.entityTypes)
      ? PICKED
      : o.sources.includes(stored)
        ? stored
        : 'auto';
  // No typeField: the TypedInput's own type ('entity') never reaches the node; the change handler writes <prop>Type.
  el.typedInput({ default: initial, types });
  const box = el.next('.red-ui-typedInput-container');
  box.toggleClass('tb-picked', initial === PICKED);
  let last = initial;
  let lastValue = String(el.typedInput('value') ?? '');
  el.on('change', () => {
    const now = String(el.typedInput('type'));
    if (now !== last) {
      const before = last;
      const carried = lastValue;
      last = now; // before setting a value below, whose own change event comes back here
      if (before === PICKED && now === 'json' && carried && !isJson(String(el.typedInput('value') ?? '')))
        el.typedInput('value', carried);
      else if (before === 'json' && now === PICKED && isPickedEntity(carried, o.entityTypes))
        el.typedInput('value', carried);
    }
    lastValue = String(el.typedInput('value') ?? '');
    box.toggleClass('tb-picked', now === PICKED);
    const keep = now === PICKED ? 'json' : now;
    if (kept.val() !== keep) kept.val(keep).trigger('change');
  });
  entityJsonInput({
    input: `#${E.prefix}${o.prop}`,
    connection: o.connection,
    types: o.entityTypes,
    field: o.prop,
    type: PICKED,
    placeholder: builderText('pickedByName.placeholder'),
  });
  return el;
}

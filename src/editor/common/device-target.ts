/**
 * The device-target part of the device actions' dialogs (tb-telemetry, tb-attributes, tb-rpc; next, the value
 * rows and tb-wait-until): which entity the node acts on, and what comes with it.
 *
 * - the `target` TypedInput: the message (msg.entity, else msg.topic), an entity picked by name, JSON (a list, or
 *   an entity typed by hand), msg., JSONata;
 * - the entity picked by name with the query builder's entity picker, among the types the node acts on
 *   (`targetEntityTypes()`, the runtime's rule: tb-rpc, devices only). It is the editor's own type: the node keeps
 *   the entity as `targetType` json, `target` `{"entityType", "id"}`, as flows always did, and a json value that is
 *   one such entity opens on the picker (so older flows do too, and the runtime knows no other type);
 * - the `targetEntityType` select: the type of a bare id (for nodes that act on several types);
 * - the keys as chips, suggested from the fixed entity's own keys (else its type's);
 * - their validators, and the `concurrency` check (the bulk of a list of entities runs that many at once).
 *
 * The template holds the inputs (`#node-input-target`, `-targetType`, `-targetEntityType`, `-keys`,
 * `-concurrency`); the part binds them.
 */
import { keysInput } from '../builder/actions';
import { fixedEntities, targetEntityTypes, type ActionType, type KeySource } from '../builder/action-settings';
import { entityJsonInput } from '../builder/dialogs';
import { t as builderText } from '../builder/dom';
import { parseTemplate } from '../../query/bindings';
import type { TypeHelpers, Validator } from './for-type';
import { blank, wholeAtLeast } from './predicates';

/** Where the entity comes from, as the node keeps it (`targetType`): the message, a fixed one (JSON), a msg. property, JSONata. */
export const TARGET_SOURCES = ['auto', 'json', 'msg', 'jsonata'];

/** The target TypedInput's type for an entity picked by name: the dialog's alone, kept as `json`. */
const PICKED = 'entity';

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Is `text` (a json target) one entity the picker can show: `{"entityType": <one of types>, "id": "…"}` and nothing else? */
function isPickedEntity(text: string, types: readonly string[]): boolean {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return Object.keys(o).length === 2 && typeof o.entityType === 'string' && types.includes(o.entityType) && typeof o.id === 'string';
}

export interface DeviceTargetOptions {
  /** The runtime's own check of the node's settings as the dialog holds them (`E.runtimeCheck(SETTINGS)`). */
  runtime: (name: string) => Validator;
  /** The keys as chips: which keys are suggested, and the node's other inputs that change them. */
  keys?: { kind(): string; watch?: readonly string[] };
}

export function deviceTarget(E: TypeHelpers, o: DeviceTargetOptions) {
  const type = E.type as ActionType;
  const entityTypes = targetEntityTypes(type);
  const sel = (prop: string) => `#${E.prefix}${prop}`;
  const connection = () => E.input('connection').val() as string | undefined;
  /** The target's source as the node keeps it: an entity picked by name is json. */
  const source = (): string => {
    const ty = String(E.input('target').typedInput('type'));
    return ty === PICKED ? 'json' : ty;
  };

  /** The fixed entities (or, without one, every entity of the type of a bare id). */
  const fixed = (): KeySource => fixedEntities(String(E.input('targetType').val() ?? ''), String(E.input('target').val() ?? ''), String(E.input('targetEntityType').val() ?? ''));

  return {
    target: E.target(TARGET_SOURCES, o.runtime),
    targetType: E.oneOf(TARGET_SOURCES, `${type}.errors.targetType`),
    targetEntityType: E.oneOf(entityTypes, `${type}.errors.targetEntityType`),
    /** In parallel: a whole number of at least 1 (blank: the runtime's default). */
    concurrency: function (v, opt) {
      return v === undefined || blank(v) || wholeAtLeast(v, 1) ? true : E.t(`${type}.errors.concurrency`);
    } as Validator,

    /** Binds the inputs (in oneditprepare). */
    prepare(): void {
      pickedTargetInput(E, entityTypes);
      entityJsonInput({ input: sel('target'), connection, types: entityTypes, field: 'target', type: PICKED });
      if (o.keys) {
        keysInput({
          input: sel('keys'),
          connection,
          source: fixed,
          kind: o.keys.kind,
          watch: [sel('target'), sel('targetEntityType'), ...(o.keys.watch ?? []).map(sel), sel('connection')],
        });
      }
    },

    /** The target's source as the node keeps it now (`auto`, `json`: an entity picked by name too, `msg`, `jsonata`). */
    source,
    fixed,
    /** The type of the entity acted on: the fixed entity's, else the one chosen for a bare id. */
    entityType(): string {
      return source() === 'json' ? fixed().entityType : String(E.input('targetEntityType').val() ?? '');
    },
  };
}

/**
 * The `target` TypedInput: the message, an entity picked by name (label and icon say so; only for a single entity
 * of the node's types), JSON, msg., JSONata. Its type is mirrored into the hidden `targetType` input as the node
 * keeps it (the picker's as json), so the validators and the runtime see the values they always did. Switching
 * between the picker and JSON carries the entity over (JSON that is empty or not JSON gets it; JSON holding one
 * entity gives it to the picker).
 */
function pickedTargetInput(E: TypeHelpers, entityTypes: readonly string[]): JQuery {
  const el = E.input('target');
  const kept = E.input('targetType');
  const stored = String(kept.val() || 'auto');
  const label = builderText(entityTypes.length === 1 && entityTypes[0] === 'DEVICE' ? 'pickedByName.device' : 'pickedByName.entity');
  const types = [{ value: 'auto', label: E.t(`${E.type}.source.target`), hasValue: false }, { value: PICKED, label, icon: 'fa fa-crosshairs', hasValue: false }, 'json', 'msg', 'jsonata'];
  const initial = stored === 'json' && isPickedEntity(String(el.val() ?? ''), entityTypes) ? PICKED : TARGET_SOURCES.includes(stored) ? stored : 'auto';
  // No typeField: the TypedInput's own type ('entity') never reaches the node; the change handler writes targetType.
  el.typedInput({ default: initial, types });
  let last = initial;
  let lastValue = String(el.typedInput('value') ?? '');
  el.on('change', () => {
    const now = String(el.typedInput('type'));
    if (now !== last) {
      const before = last;
      const carried = lastValue;
      last = now; // before setting a value below, whose own change event comes back here
      if (before === PICKED && now === 'json' && carried && !isJson(String(el.typedInput('value') ?? ''))) el.typedInput('value', carried);
      else if (before === 'json' && now === PICKED && isPickedEntity(carried, entityTypes)) el.typedInput('value', carried);
    }
    lastValue = String(el.typedInput('value') ?? '');
    const keep = now === PICKED ? 'json' : now;
    if (kept.val() !== keep) kept.val(keep).trigger('change');
  });
  return el;
}

/**
 * The settings a message may set, shown in the dialog (issue 17's rule: a value fixed in the dialog wins, a setting
 * left empty, or holding a `{{msg.…}}` placeholder, reads the message). `settings` maps each setting to the message
 * property it reads (`keys` → `msg.keys`). Each gets a small envelope marker beside its label while it is empty or
 * holds a placeholder, its tooltip saying where the value comes from; a select among them gets the choice "from the
 * message" (its empty value) unless it has an empty choice already, and `defaults` says what a select left unset
 * by an older flow shows (instead of the editor's select defaults, which would replace the empty choice).
 */
export function messageSettings(E: TypeHelpers, node: Record<string, unknown>, settings: Record<string, string>, defaults: Record<string, string> = {}): void {
  for (const name of Object.keys(settings)) {
    const el = E.input(name);
    if (!el.length) continue;
    const prop = settings[name];
    if (el.is('select')) {
      if (!el.find('option[value=""]').length) el.append($('<option value="">').text(E.t(`${E.type}.fromMsg`, { prop })));
      const saved = node[name];
      el.val(saved === undefined || saved === null ? (defaults[name] ?? '') : String(saved));
    }
    const marker = $('<i class="fa fa-envelope-o tb-from-msg" style="margin-left: 4px; opacity: 0.7;"></i>').attr('title', E.t(`${E.type}.tip.fromMsg`, { prop }));
    $(`label[for="${E.prefix}${name}"]`).first().append(marker);
    const update = () => {
      const v = String(el.val() ?? '');
      marker.toggle(v.trim() === '' || v.indexOf('{{') !== -1);
    };
    el.on('change input keyup', update);
    update();
  }
}

/**
 * The runtime's check of a setting, except for a setting holding a placeholder (`{{msg.…}}`, `{{flow.…}}`…): its
 * value comes with each message and is checked then (the runtime names the binding of a wrong value).
 */
export function placeholderAware(runtime: (name: string) => Validator): (name: string) => Validator {
  return (name) => {
    const check = runtime(name);
    return function (v, opt) {
      return typeof v === 'string' && parseTemplate(v) ? true : check.call(this, v, opt);
    };
  };
}

/**
 * The device-target part of the dialogs that act on or watch entities (tb-telemetry, tb-attributes, tb-rpc,
 * tb-wait-until): which entity the node acts on, and what comes with it.
 *
 * - the `target` TypedInput: the message (msg.entity, else msg.topic), an entity picked by name, JSON (a list, or
 *   an entity typed by hand), msg., JSONata;
 * - the entity picked by name with the query builder's entity picker (picked-entity.ts), among the types the node
 *   acts on (`targetEntityTypes()`, the runtime's rule: tb-rpc, devices only), kept as `targetType` json;
 * - a line that says which entity that is, as configured (`describe`);
 * - the `targetEntityType` select: the type of a bare id (for nodes that act on several types);
 * - the keys as chips, suggested from the fixed entity's own keys (else its type's);
 * - the target's validator, and the `concurrency` check (the bulk of a list of entities runs that many at once;
 *   blank reads as the node's default).
 *
 * The template holds the inputs (`#node-input-target`, `-targetType`, `-targetEntityType`, `-keys`,
 * `-concurrency`); the part binds them.
 */
import { parseTemplate } from '../../protocol/bindings';
import { TARGET_SOURCES } from '../../settings/target';
import {
  fixedEntities,
  targetEntityTypes,
  validateSetting,
  type ActionType,
  type KeySource,
} from '../builder/action-settings';
import { keysInput } from '../builder/actions';
import { Lookups } from '../builder/lookups';
import type { TypeHelpers, Validator } from './for-type';
import { PICKED, pickedEntity, pickedEntityInput } from './picked-entity';
import { blank, isUuid, wholeAtLeast } from './predicates';

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
  // The names of picked entities, read once and kept.
  const lookups = new Lookups(connection);
  const askedNames = new Set<string>();

  const fixed = (): KeySource =>
    fixedEntities(
      String(E.input('targetType').val() ?? ''),
      String(E.input('target').val() ?? ''),
      String(E.input('targetEntityType').val() ?? ''),
    );

  return {
    target: E.target(TARGET_SOURCES, o.runtime),
    /** In parallel: a whole number of at least 1 (blank: the node's default). */
    concurrency: function (v, opt) {
      return v === undefined || blank(v) || wholeAtLeast(v, 1) ? true : E.t(`${type}.errors.concurrency`);
    } as Validator,

    /** Binds the inputs (in oneditprepare). */
    prepare(): void {
      pickedEntityInput(E, {
        prop: 'target',
        sources: TARGET_SOURCES,
        autoLabel: E.t(`${type}.source.target`),
        entityTypes,
        connection,
      });
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

    /**
     * The target's source as the node keeps it now (`auto`, `json`: an entity picked by name too, `msg`, `jsonata`).
     */
    source,
    fixed,
    /** The type of the entity acted on: the fixed entity's, else the one chosen for a bare id. */
    entityType(): string {
      return source() === 'json' ? fixed().entityType : String(E.input('targetEntityType').val() ?? '');
    },

    /**
     * The name of the entity picked by name in `prop` (the target, or another entity input such as tb-relation's
     * related one), once known: undefined when none is picked or its name is not read yet; `then` is called when
     * a name asked for arrives.
     */
    pickedName(prop = 'target', then?: () => void): string | undefined {
      const input = E.input(prop);
      if (String(input.typedInput('type')) !== PICKED) return undefined;
      const e = pickedEntity(String(input.typedInput('value') ?? '').trim());
      if (!e || !e.id.trim()) return undefined;
      const name = lookups.knownName(e.id);
      if (name === undefined && then && isUuid(e.id) && !askedNames.has(e.id)) {
        askedNames.add(e.id);
        void lookups.names(e.entityType, [e.id]).then(then);
      }
      return name;
    },

    /**
     * Says in `el` which entity the node acts on as the dialog is set now, following the target: the catalog's
     * `<key><how>` (`key` ends with a dot), how being auto (the message), picked (__name__: the picked entity's
     * name, once known), pickedNone (none picked yet), json, msg (__prop__: the msg. property) or jsonata. `then`:
     * called after each change of the line (a summary that names the entity follows it).
     */
    describe(el: JQuery, key: string, then?: () => void): void {
      const asked = new Set<string>();
      const update = (): void => {
        const input = E.input('target');
        const how = String(input.typedInput('type'));
        const value = String(input.typedInput('value') ?? '').trim();
        if (how === PICKED) {
          const e = pickedEntity(value);
          if (!e || !e.id.trim()) {
            el.text(E.t(`${key}pickedNone`));
            return;
          }
          const name = lookups.knownName(e.id);
          if (name === undefined && isUuid(e.id) && !asked.has(e.id)) {
            asked.add(e.id);
            void lookups.names(e.entityType, [e.id]).then(update);
          }
          el.text(E.t(`${key}picked`, { name: name ?? e.id }));
          then?.();
          return;
        }
        el.text(E.t(`${key}${['json', 'msg', 'jsonata'].includes(how) ? how : 'auto'}`, { prop: `msg.${value}` }));
        then?.();
      };
      E.follow(update, ['target']);
    },
  };
}

/**
 * The settings a message may set, shown in the dialog (the node's rule: a value fixed in the dialog wins, a setting
 * left empty, or holding a `{{msg.…}}` placeholder, reads the message). `settings` maps each setting to the message
 * property it reads (`keys` → `msg.keys`: the declaration's `fromMessage`). Each gets a small envelope marker beside
 * its label while it is empty or holds a placeholder, its tooltip saying where the value comes from; a select among
 * them gets the choice "from the message" (its empty value) unless it has an empty choice already, and keeps the
 * value the dialog shows (a node migrated from an older version may show that empty value).
 */
export function messageSettings(
  E: TypeHelpers,
  // The node: what the dialog shows of it is read from the inputs (its migrated settings), not from it.
  _node: Record<string, unknown>,
  settings: Record<string, string>,
): void {
  for (const name of Object.keys(settings)) {
    const el = E.input(name);
    if (!el.length) continue;
    const prop = settings[name];
    if (el.is('select') && !el.find('option[value=""]').length) {
      // Empty before the choice exists, the select shows no value (null): after it, that choice.
      const shown: unknown = el.val();
      el.append($('<option value="">').text(E.t(`${E.type}.fromMsg`, { prop })));
      el.val(shown === null || shown === undefined ? '' : String(shown));
    }
    const marker = $('<i class="fa fa-envelope-o tb-from-msg" style="margin-left: 4px; opacity: 0.7;"></i>').attr(
      'title',
      E.t(`${E.type}.tip.fromMsg`, { prop }),
    );
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

/**
 * The part for a node that watches any entity whose attributes and time series ThingsBoard keeps (tb-wait-until,
 * tb-trigger): its runtime gives the entity setting tb-attributes' policy (every type of TELEMETRY_ENTITY_TYPES, a
 * bare UUID typed by targetEntityType). The targets' table has rows for the three device actions only, so the part
 * borrows tb-attributes' row, checks the target by the runtime's own rules (`msg`: the action that takes its other
 * settings from the message, so that only the target is checked), and reads its texts from the node's own catalog.
 */
export function watchedEntityTarget(E: TypeHelpers) {
  const rule: ActionType = 'tb-attributes';
  const check = placeholderAware(
    (name) =>
      function (v) {
        if (v === undefined) return true;
        const get = (prop: string) => E.value(this, prop);
        const settings = {
          operation: 'msg',
          target: get('target'),
          targetType: get('targetType'),
          targetEntityType: get('targetEntityType'),
        };
        return validateSetting(rule, settings, name);
      },
  );
  const t: TypeHelpers['t'] = (key, opts) => E.t(key.replace(`${rule}.`, `${E.type}.`), opts);
  return deviceTarget({ ...E, type: rule, t }, { runtime: check });
}

/**
 * The helpers of one node type's dialog (`forType(type)`, the `E` of every dialog): its catalog, its inputs, and
 * validators built from the conventional messages of its catalog.
 *
 * Validators are `function (v, opt)` (two parameters: the editor then shows the returned string) and return `true`
 * or a translated sentence. A property missing from a flow saved by an older version (undefined) is valid wherever
 * the runtime has a default for it, so most validators accept undefined. Messages name a catalog key of the node;
 * the conventional ones are read from `<type>.errors.<name>`: connection, connectionInvalid, version, boolean (with
 * __field__), target/targetType (and `<prop>`/`<prop>Type` for other sourced settings); the query part's own are in
 * query-part.ts.
 */
import { parseDuration } from '../../protocol/duration';
import { catalogKey } from '../../settings/declare';
import { validateSetting, type ActionType } from '../builder/action-settings';
import { blank, isBool, isKeyList, items, positiveNumber, wholeAtLeast } from './predicates';

/** A node as the editor hands it to validators and dialog functions (`this`): its properties by name. */
export type EditorNode = Record<string, unknown>;

/**
 * A property's validator, as Node-RED calls it (declared with two parameters, so that it shows the message): true,
 * or the message; false where Node-RED's own check (RED.validators) is passed on as it answers.
 */
export type Validator = (this: EditorNode, v: unknown, opt?: unknown) => boolean | string;

/**
 * The values a validator's message takes: given, or made when the message is (a module translates nothing at load,
 * so values that are translations themselves, such as a field's label, come as a function).
 */
export type MessageOptions = Record<string, unknown> | (() => Record<string, unknown>);

export function forType(type: string, options?: { config?: boolean }) {
  const prefix = options?.config ? 'node-config-input-' : 'node-input-';

  /** A key of this node's catalog, translated. */
  function t(key: string, opts?: Record<string, unknown>): string {
    return RED._(catalogKey(type, key), opts);
  }
  function err(name: string, opts?: Record<string, unknown>): string {
    return t(`${type}.errors.${name}`, opts);
  }
  /** A validator's message. */
  function message(key: string, opts?: MessageOptions): string {
    return t(key, typeof opts === 'function' ? opts() : opts);
  }

  /** The dialog's input for a property. */
  function input(prop: string): JQuery {
    return $(`#${prefix}${prop}`);
  }

  /** The live form value while the dialog is open, else the saved value. */
  function value(node: EditorNode, prop: string): unknown {
    const el = input(prop);
    if (!el.length) return node[prop];
    return el.is(':checkbox') ? el.prop('checked') : el.val();
  }

  /** Node-RED's own check of a TypedInput's value (msg. paths, JSONata, JSON), for the type held in `typeField`. */
  function typedInputCheck(self: EditorNode, typeField: string, v: unknown, opt: unknown): true | string | false {
    return RED.validators.typedInput(typeField).call(self, v, opt);
  }

  /** Checks the value only while `applies` (called with the node as `this`) says the field is in use. */
  function when(applies: (this: EditorNode, v: unknown) => unknown, validator: Validator): Validator {
    return function (v, opt) {
      return applies.call(this, v) ? validator.call(this, v, opt) : true;
    };
  }

  /** The first message of several validators. */
  function all(...validators: Validator[]): Validator {
    return function (v, opt) {
      for (const validator of validators) {
        const r = validator.call(this, v, opt);
        if (r !== true) return r;
      }
      return true;
    };
  }

  function oneOf(allowed: readonly unknown[], key: string, opts?: MessageOptions): Validator {
    return function (v, opt) {
      if (v === undefined) return true;
      return allowed.indexOf(v) !== -1 ? true : message(key, opts);
    };
  }

  /**
   * The device-action dialogs' check through the runtime's own code: `runtime(name)` is a validator that
   * reports the problem of setting `name` among `settingNames` as the dialog holds them.
   */
  function runtimeCheck(settingNames: readonly string[]): (name: string) => Validator {
    return (name) =>
      function (v, opt) {
        if (v === undefined) return true;
        const s: Record<string, unknown> = {};
        for (const p of settingNames) s[p] = value(this, p);
        return validateSetting(type as ActionType, s, name);
      };
  }

  /**
   * A setting with a source (a TypedInput whose type is in `<prop>Type`): the source is one of `types`; 'auto' (the
   * message) needs no value; a fixed one (json, str) goes to `runtime`; msg. and JSONata to Node-RED's own check.
   */
  function sourced(prop: string, types: readonly string[], runtime: (name: string) => Validator): Validator {
    return function (v, opt) {
      if (v === undefined) return true;
      const src = value(this, `${prop}Type`) || 'auto';
      if (types.indexOf(src as string) === -1) return err(`${prop}Type`);
      if (src === 'auto') return true;
      if (blank(v)) return err(prop);
      if (src === 'json' || src === 'str') return runtime(prop).call(this, v, opt);
      const r = typedInputCheck(this, `${prop}Type`, v, opt);
      return r === true ? true : r || err(prop);
    };
  }

  /**
   * The TypedInput of a sourced setting (its type kept in the hidden `<prop>Type` input): `auto`, the message,
   * has no value and is labelled by the catalog's `<type>.source.<prop>` (such as "msg.entity, else msg.topic").
   */
  function sourcedInput(prop: string, types: readonly string[]): JQuery {
    const choices = types.map((ty) =>
      ty === 'auto' ? { value: 'auto', label: t(`${type}.source.${prop}`), hasValue: false } : ty,
    );
    return input(prop).typedInput({ default: 'auto', types: choices, typeField: `#${prefix}${prop}Type` });
  }

  /**
   * Runs `update` now and again when one of the `triggers` inputs changes (text inputs on every keystroke): a summary
   * line that follows the settings, or rows shown and hidden ({@link showRows}). Returns `update`.
   */
  function follow(update: () => void, triggers?: readonly string[]): () => void {
    for (const prop of triggers || []) {
      const el = input(prop);
      el.on(el.is('select, :checkbox') ? 'change' : 'change keyup paste', update);
    }
    update();
    return update;
  }

  /** Trims text inputs before they are saved. */
  function trim(props: readonly string[]): void {
    for (const prop of props) {
      const el = input(prop);
      el.val($.trim(String(el.val() || '')));
    }
  }

  return {
    type,
    prefix,
    t,
    input,
    value,

    // -- validators --

    any: function (v: unknown, opt?: unknown): true {
      return true;
    } as Validator,

    /** A required tb-connection reference; `more(cfg)` adds checks on the config node. */
    connection(more?: (cfg: TbConfigNode) => true | string): Validator {
      return function (v, opt) {
        if (!v || v === '_ADD_') return err('connection');
        const cfg = RED.nodes.node(String(v));
        if (!cfg) return err('connection');
        if (cfg.valid === false) {
          // What is wrong with it (such as an imported connection's missing sign-in), not only that something is.
          const why = (cfg.validationErrors || []).filter((e): e is string => typeof e === 'string' && e !== '');
          return why.length ? `${err('connectionInvalid')} ${why.join(' ')}` : err('connectionInvalid');
        }
        return more ? more(cfg) : true;
      };
    },

    version(): Validator {
      return function (v, opt) {
        return v === undefined || Number.isInteger(Number(v)) ? true : err('version');
      };
    },

    oneOf,
    runtimeCheck,
    sourced,
    sourcedInput,

    /** The entity setting of a device action (`target`, its source in `targetType`). */
    target(types: readonly string[], runtime: (name: string) => Validator): Validator {
      return sourced('target', types, runtime);
    },

    /** A checkbox; the message names the field by its label key. */
    bool(labelKey: string): Validator {
      return function (v, opt) {
        if (v === undefined) return true;
        return isBool(v) ? true : err('boolean', { field: t(labelKey) });
      };
    },

    /** A whole number from min to max (max: null for no upper bound). */
    whole(min: number, max: number | null | undefined, key: string, opts?: MessageOptions): Validator {
      return function (v, opt) {
        if (v === undefined) return true;
        const ok = wholeAtLeast(v, min) && (max === null || max === undefined || Number(v) <= max);
        return ok ? true : message(key, opts);
      };
    },

    /** A duration such as 30s, 15m, 2h (a number alone is ms) of at least `min` ms (more than it with `above`). */
    duration(key: string, min = 0, above = false, opts?: MessageOptions): Validator {
      return function (v, opt) {
        if (v === undefined) return true;
        const ms = parseDuration(typeof v === 'number' ? v : String(v));
        return ms !== undefined && (above ? ms > min : ms >= min) ? true : message(key, opts);
      };
    },

    positive(key: string, opts?: MessageOptions): Validator {
      return function (v, opt) {
        if (v === undefined) return true;
        return positiveNumber(v) ? true : message(key, opts);
      };
    },

    /** A comma-separated list without empty items (blank is fine). */
    keyList(key: string, opts?: MessageOptions): Validator {
      return function (v, opt) {
        if (v === undefined) return true;
        return isKeyList(v) ? true : message(key, opts);
      };
    },

    /** A comma-separated list of allowed values (blank is fine). */
    listOf(allowed: readonly string[], key: string): Validator {
      return function (v, opt) {
        if (v === undefined || blank(v)) return true;
        return items(v).every((s) => allowed.indexOf(s) !== -1) ? true : t(key);
      };
    },

    when,
    all,

    // -- dialog --

    /** Sets selects to their default when the node has no value (a flow saved by an older version). */
    selectDefaults(node: EditorNode, values: Record<string, string | number>): void {
      for (const prop of Object.keys(values)) {
        if (!node[prop]) input(prop).val(values[prop]);
      }
    },

    /**
     * A TypedInput whose type is kept in the hidden `<prop>Type` input; the first type is the default.
     * With `msgDefault`, choosing msg with an empty value fills in that property.
     */
    typedInput(prop: string, types: ReadonlyArray<string | Record<string, unknown>>, msgDefault?: string): JQuery {
      const el = input(prop);
      el.typedInput({ default: types[0], types, typeField: `#${prefix}${prop}Type` });
      if (msgDefault) {
        el.on('change', function (this: HTMLElement) {
          if ($(this).typedInput('type') === 'msg' && !$(this).typedInput('value'))
            $(this).typedInput('value', msgDefault);
        });
      }
      return el;
    },

    /** A multi-select TypedInput (comma-separated values). */
    multiSelect(prop: string, name: string, options: unknown[]): JQuery {
      return input(prop).typedInput({ types: [{ value: name, multiple: true, options }] });
    },

    /**
     * Shows or hides rows: `rules()` returns { selector: visible } (applied in order), re-applied when one of the
     * `triggers` inputs changes (text inputs on every keystroke). Returns the update function.
     */
    showRows(rules: () => Record<string, unknown>, triggers?: readonly string[]): () => void {
      return follow(() => {
        const r = rules();
        for (const selector of Object.keys(r)) $(selector).toggle(!!r[selector]);
      }, triggers);
    },

    follow,

    trim,
  };
}

/** The helpers of one node type (what `forType` returns). */
export type TypeHelpers = ReturnType<typeof forType>;

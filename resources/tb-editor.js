/**
 * Shared editor helpers of node-red-contrib-thingsboard-query.
 *
 * Every nodes/<type>.html includes this file with
 *   <script src="resources/node-red-contrib-thingsboard-query/tb-editor.js"></script>
 * The editor loads it before it evaluates the inline scripts of that html, and the node sets of one
 * module each include it, so it runs several times: only the first run defines window.TbEditor.
 *
 * Usage in a node's html:
 *   var E = TbEditor.forType('tb-entity-query');   // or forType('tb-connection', { config: true })
 *   var t = E.t;                                    // t('tb-entity-query.label.name'): the node's catalog
 *   defaults: { operation: { value: 'find', label: t('…'), validate: E.oneOf(['find', 'keys'], '…errors.operation') } }
 *
 * Validators are `function (v, opt)` (two parameters: the editor then shows the returned string) and return
 * `true` or a translated sentence. A property missing from a flow saved by an older version (undefined) is
 * valid wherever the runtime has a default for it, so most validators accept undefined.
 * Messages name a catalog key of the node; the conventional ones are read from `<type>.errors.<name>`:
 * connection, connectionInvalid, version, boolean (with __field__), and for the query TypedInput queryType,
 * queryEmpty, queryJson (with __error__). A JSON query itself is checked by the runtime's own validation
 * (TbBuilder.validateText, from resources/tb-builder.js).
 */
(function (window) {
    'use strict';
    if (window.TbEditor) { return; }

    var MODULE = 'node-red-contrib-thingsboard-query';
    var QUERY_TYPES = ['json', 'msg', 'flow', 'global', 'jsonata'];
    var ALARM_SEVERITIES = ['CRITICAL', 'MAJOR', 'MINOR', 'WARNING', 'INDETERMINATE'];

    // ---- predicates -------------------------------------------------------------------------------------

    function blank(v) {
        return v === undefined || v === null || String(v).trim() === '';
    }
    function isPlainObject(o) {
        return o !== null && typeof o === 'object' && !Array.isArray(o);
    }
    function isBool(v) {
        return v === true || v === false || v === 'true' || v === 'false';
    }
    function isOn(v) {
        return v === true || v === 'true';
    }
    /** "a, b" -> ['a', 'b'] */
    function items(v) {
        return String(v).split(',').map(function (s) { return s.trim(); });
    }
    /** "a, b" -> true; "a,,b" or ",a" -> false; '' -> true (nothing listed). */
    function keyList(v) {
        return blank(v) || items(v).every(function (s) { return s !== ''; });
    }
    function positiveNumber(v) {
        var n = Number(v);
        return !blank(v) && isFinite(n) && n > 0;
    }
    function wholeAtLeast(v, min) {
        var n = Number(v);
        return !blank(v) && Number.isInteger(n) && n >= min;
    }

    /** The node's label is italic when it has a name (the core convention). */
    function labelStyle() {
        return this.name ? 'node_label_italic' : '';
    }

    // ---- the helpers of one node type ------------------------------------------------------------------

    function forType(type, options) {
        var NS = MODULE + '/' + type;
        var prefix = options && options.config ? 'node-config-input-' : 'node-input-';
        var E = { type: type, prefix: prefix };

        /** A key of this node's catalog, translated. */
        function t(key, opts) { return RED._(NS + ':' + key, opts); }
        function err(name, opts) { return t(type + '.errors.' + name, opts); }
        E.t = t;

        /** The dialog's input for a property. */
        E.input = function (prop) { return $('#' + prefix + prop); };

        /** The live form value while the dialog is open, else the saved value. */
        E.value = function (node, prop) {
            var el = E.input(prop);
            if (!el.length) { return node[prop]; }
            return el.is(':checkbox') ? el.prop('checked') : el.val();
        };

        // -- validators --

        E.any = function (v, opt) { return true; };

        /** A required tb-connection reference; `more(cfg)` adds checks on the config node. */
        E.connection = function (more) {
            return function (v, opt) {
                if (!v || v === '_ADD_') { return err('connection'); }
                var cfg = RED.nodes.node(v);
                if (!cfg) { return err('connection'); }
                if (cfg.valid === false) {
                    // What is wrong with it (such as an imported connection's missing sign-in), not only that something is.
                    var why = (cfg.validationErrors || []).filter(function (e) { return typeof e === 'string' && e !== ''; });
                    return why.length ? err('connectionInvalid') + ' ' + why.join(' ') : err('connectionInvalid');
                }
                return more ? more(cfg) : true;
            };
        };

        E.version = function () {
            return function (v, opt) {
                return (v === undefined || Number.isInteger(Number(v))) ? true : err('version');
            };
        };

        E.oneOf = function (allowed, key, opts) {
            return function (v, opt) {
                if (v === undefined) { return true; }
                return allowed.indexOf(v) !== -1 ? true : t(key, opts);
            };
        };

        /**
         * The device-action dialogs' check through the runtime's own code (src/query via TbBuilder): `runtime(name)`
         * is a validator that reports the problem of setting `name` among `settingNames` as the dialog holds them.
         */
        E.runtimeCheck = function (settingNames) {
            return function (name) {
                return function (v, opt) {
                    if (v === undefined) { return true; }
                    var s = {};
                    var node = this;
                    settingNames.forEach(function (p) { s[p] = E.value(node, p); });
                    return TbBuilder.validateSetting(type, s, name);
                };
            };
        };

        /** The entity setting of a device action: its source is one of `types`; 'auto' needs no value; JSON goes to `runtime`. */
        E.target = function (types, runtime) {
            return function (v, opt) {
                if (v === undefined) { return true; }
                var src = E.value(this, 'targetType') || 'auto';
                if (types.indexOf(src) === -1) { return err('targetType'); }
                if (src === 'auto') { return true; }
                if (blank(v)) { return err('target'); }
                if (src === 'json') { return runtime('target').call(this, v, opt); }
                var r = RED.validators.typedInput('targetType').call(this, v, opt);
                return r === true ? true : (r || err('target'));
            };
        };

        /** A checkbox; the message names the field by its label key. */
        E.bool = function (labelKey) {
            return function (v, opt) {
                if (v === undefined) { return true; }
                return isBool(v) ? true : err('boolean', { field: t(labelKey) });
            };
        };

        /** A whole number from min to max (max: null for no upper bound). */
        E.whole = function (min, max, key, opts) {
            return function (v, opt) {
                if (v === undefined) { return true; }
                var ok = wholeAtLeast(v, min) && (max === null || max === undefined || Number(v) <= max);
                return ok ? true : t(key, opts);
            };
        };

        E.positive = function (key, opts) {
            return function (v, opt) {
                if (v === undefined) { return true; }
                return positiveNumber(v) ? true : t(key, opts);
            };
        };

        /** A comma-separated list without empty items (blank is fine). */
        E.keyList = function (key, opts) {
            return function (v, opt) {
                if (v === undefined) { return true; }
                return keyList(v) ? true : t(key, opts);
            };
        };

        /** A comma-separated list of allowed values (blank is fine). */
        E.listOf = function (allowed, key) {
            return function (v, opt) {
                if (v === undefined || blank(v)) { return true; }
                return items(v).every(function (s) { return allowed.indexOf(s) !== -1; }) ? true : t(key);
            };
        };

        /** Checks the value only while `applies` (called with the node as `this`) says the field is in use. */
        E.when = function (applies, validator) {
            return function (v, opt) {
                return applies.call(this, v) ? validator.call(this, v, opt) : true;
            };
        };

        /** The first message of several validators. */
        E.all = function () {
            var validators = Array.prototype.slice.call(arguments);
            return function (v, opt) {
                for (var i = 0; i < validators.length; i++) {
                    var r = validators[i].call(this, v, opt);
                    if (r !== true) { return r; }
                }
                return true;
            };
        };

        /**
         * The query TypedInput (json, msg, flow, global, jsonata, type in `queryType`); a JSON query is
         * given to `check(text, node)` (the runtime's validation, through TbBuilder.validateText).
         */
        E.query = function (check) {
            return function (v, opt) {
                var type = E.value(this, 'queryType') || 'json';
                if (QUERY_TYPES.indexOf(type) === -1) { return err('queryType'); }
                if (type === 'json' && blank(v)) { return err('queryEmpty'); }
                var r = RED.validators.typedInput('queryType').call(this, v, opt);
                if (r !== true) { return r || err('queryJson', { error: '' }); }
                if (type !== 'json') { return true; }
                // Where the JSON breaks, by line and column of the text (TbBuilder comes from tb-query.js).
                var problem = window.TbBuilder && window.TbBuilder.jsonProblem(v);
                return problem ? err('queryJson', { error: problem }) : check(v, this);
            };
        };
        E.queryType = function () {
            return E.oneOf(QUERY_TYPES, type + '.errors.queryType');
        };

        // -- dialog --

        /** Sets selects to their default when the node has no value (a flow saved by an older version). */
        E.selectDefaults = function (node, values) {
            Object.keys(values).forEach(function (prop) {
                if (!node[prop]) { E.input(prop).val(values[prop]); }
            });
        };

        /**
         * A TypedInput whose type is kept in the hidden `<prop>Type` input; the first type is the default.
         * With `msgDefault`, choosing msg with an empty value fills in that property.
         */
        E.typedInput = function (prop, types, msgDefault) {
            var el = E.input(prop);
            el.typedInput({ default: types[0], types: types, typeField: '#' + prefix + prop + 'Type' });
            if (msgDefault) {
                el.on('change', function () {
                    if ($(this).typedInput('type') === 'msg' && !$(this).typedInput('value')) {
                        $(this).typedInput('value', msgDefault);
                    }
                });
            }
            return el;
        };

        /** A multi-select TypedInput (comma-separated values). */
        E.multiSelect = function (prop, name, options) {
            return E.input(prop).typedInput({ types: [{ value: name, multiple: true, options: options }] });
        };

        /**
         * Shows or hides rows: `rules()` returns { selector: visible } (applied in order), re-applied when one
         * of the `triggers` inputs changes (text inputs on every keystroke). Returns the update function.
         */
        E.showRows = function (rules, triggers) {
            function update() {
                var r = rules();
                Object.keys(r).forEach(function (selector) { $(selector).toggle(!!r[selector]); });
            }
            (triggers || []).forEach(function (prop) {
                var el = E.input(prop);
                el.on(el.is('select, :checkbox') ? 'change' : 'change keyup paste', update);
            });
            update();
            return update;
        };

        /** Trims text inputs before they are saved. */
        E.trim = function (props) {
            props.forEach(function (prop) {
                var el = E.input(prop);
                el.val($.trim(el.val() || ''));
            });
        };

        return E;
    }

    window.TbEditor = {
        QUERY_TYPES: QUERY_TYPES,
        ALARM_SEVERITIES: ALARM_SEVERITIES,
        forType: forType,
        labelStyle: labelStyle,
        blank: blank,
        isPlainObject: isPlainObject,
        isOn: isOn,
        items: items,
        wholeAtLeast: wholeAtLeast
    };
})(window);

/**
 * The device actions' dialogs (tb-telemetry, tb-attributes, tb-rpc) on the query builder's parts: the keys as chips
 * with suggestions from the entity's own keys (the fixed entity chosen with the entity picker), else from the keys
 * of the entities of the type the node acts on. The node's own input stays the truth: the chips write the
 * comma-separated `keys` the runtime reads. The settings' checks are in action-settings.ts.
 */
import { entityTypeName } from '../../query-model/schema';
import { keyList, keysOfKind, type KeySource } from './action-settings';
import { ensureStyle, t } from './dom';
import { Lookups } from './lookups';
import { chips } from './widgets';

export interface KeysInputOptions {
  /** The node's text input of the comma-separated keys (hidden behind the chips). */
  input: string;
  connection: () => string | undefined;
  /** The entities whose keys are suggested. */
  source: () => KeySource;
  /** `timeseries`, an attribute scope, or `attributes` (any scope). */
  kind: () => string;
  /** Inputs whose change changes the source or the kind (the chips are drawn again). */
  watch?: string[];
}

/**
 * The keys as chips: suggestions from the entity's own keys (or its type's), a chip the entity does not have
 * marked; Enter, a pick or leaving the box adds one, a comma-separated paste adds several.
 */
export function keysInput(o: KeysInputOptions): void {
  ensureStyle();
  const input = $(o.input);
  const lookups = new Lookups(o.connection);
  input.hide();
  const holder = $('<div class="tb-b tb-b-keys">')
    .css({ display: 'inline-block', width: '70%', margin: 0 })
    .insertAfter(input);
  const hint = $('<div class="tb-b-hint" data-tb-keys-source>').css({ margin: '2px 0 0 104px' }).insertAfter(holder);
  const field = input.attr('id')?.replace(/^node-(config-)?input-/, '') ?? 'keys';

  const names = async (): Promise<string[] | null> => {
    const src = o.source();
    const keys = src.ids.length
      ? await lookups.entityKeys(src.entityType, src.ids)
      : await lookups.keys(src.entityType, src.profiles ?? []);
    return keys ? keysOfKind(keys, o.kind()) : null;
  };
  const write = (keys: string[]) => input.val(keys.join(', ')).trigger('change');
  const showSource = () => {
    const src = o.source();
    hint.attr('data-tb-keys-source', src.ids.length ? 'entity' : 'type');
    const name = src.ids.length === 1 ? lookups.knownName(src.ids[0]) : undefined;
    hint.text(
      src.ids.length
        ? t('keysOfEntity', { name: name ?? src.ids.join(', ') })
        : t('keysOfType', { type: entityTypeName(src.entityType) }),
    );
  };
  lookups.onNames(showSource);
  // Without an answer from the server (an undeployed connection…) the keys are typed by hand: say why.
  const problem = $('<div class="tb-b-hint tb-b-error" data-tb-keys-problem>')
    .css({ margin: '2px 0 0 104px' })
    .hide()
    .insertAfter(hint);
  lookups.onProblem((p) => {
    if (!p) problem.hide();
    else
      problem
        .text(
          p.status === 404 || p.code === 'TB_NOT_DEPLOYED'
            ? t('lookupDeployFirst')
            : t('lookupFailed', { message: p.message }),
        )
        .show();
  });
  const draw = () => {
    const keys = keyList(input.val());
    holder.empty().append(
      chips({
        field,
        items: keys.map((k) => ({ value: k })),
        placeholder: t('addKey'),
        suggest: async (text) => {
          const all = await names();
          if (!all) return null;
          const s = text.trim().toLowerCase();
          const chosen = keyList(input.val());
          return all
            .filter((n) => !chosen.includes(n) && n.toLowerCase().includes(s))
            .map((n) => ({ value: n, label: n }));
        },
        known: async (i) => {
          const all = await names();
          return all && all.length ? all.includes(keys[i]) : null;
        },
        add: (v) => {
          write([...keyList(input.val()), ...keyList(v)].filter((k, i, a) => a.indexOf(k) === i));
          draw();
        },
        remove: (i) => {
          const list = keyList(input.val());
          list.splice(i, 1);
          write(list);
          draw();
        },
      }),
    );
    showSource();
  };
  for (const sel of o.watch ?? []) $(sel).on('change', draw);
  draw();
}

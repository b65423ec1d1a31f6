/** tb-relation's dialog: create, delete, find relations (the settings as the runtime reads them). */
import { settingsCheck } from '../../editor/builder/action-settings';
import { deviceTarget, messageSettings, placeholderAware } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { PICKED, pickedEntityInput } from '../../editor/dialog/picked-entity';
import { RELATION_ENTITY_TYPES } from '../../protocol/targets';
import { fromMessage } from '../../settings/declare';
import { TARGET_SOURCES } from '../../settings/target';
import { label } from './label';
import { checkRelationSettings } from './logic';
import { MIGRATIONS } from './migrations';
import { TB_RELATION } from './settings';

const E = forType('tb-relation');
settingsCheck('tb-relation', checkRelationSettings);

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_RELATION.settings.operation.default);
}

/** The runtime's own check of the settings as the dialog holds them, when the problem is this setting's. */
const runtime = placeholderAware(E.runtimeCheck(Object.keys(TB_RELATION.settings)));
const target = deviceTarget(E, { runtime });

/** The two ends and the relation as the dialog holds them, in words: "Gamma Floor 2 Contains Meter G-201." */
function summary(node: EditorNode): string {
  const s = (key: string, opts?: Record<string, unknown>) => E.t(`tb-relation.summary.${key}`, opts);
  const o = op(node);
  if (o === 'msg') return s('fromMsg');
  const update = (): void => {
    $('[data-tb-relation-summary]').text(summary(node));
  };
  const end = (prop: string, message: string): string => {
    const type = String(E.input(prop).typedInput('type'));
    if (type === PICKED) return target.pickedName(prop, update) ?? s('picked');
    if (type === 'auto' || type === '') return message;
    return s(type === 'msg' ? 'msgProp' : 'given', { prop: `msg.${String(E.input(prop).typedInput('value') ?? '')}` });
  };
  const entity = end('target', s('entityMsg'));
  const related = end('related', s('relatedMsg'));
  const typed = String(E.value(node, 'relationType') ?? '').trim();
  const type = typed || s('typeMsg');
  const from = String(E.value(node, 'direction') || TB_RELATION.settings.direction.default) === 'FROM';
  if (o === 'find') {
    const n = Number(String(E.value(node, 'maxLevel') ?? '').trim() || TB_RELATION.settings.maxLevel.default);
    const depth = n === 0 ? s('everyLevel') : s(n === 1 ? 'oneLevel' : 'levels', { n });
    return s(from ? 'findDown' : 'findUp', { entity, type: typed || s('anyType'), depth });
  }
  return s(o, { from: from ? entity : related, type, to: from ? related : entity });
}

export default dialog(E, {
  declaration: TB_RELATION,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say: the two entities, the type, the related types.
  validators: {
    target: target.target,
    related: E.sourced('related', TARGET_SOURCES, runtime),
    relationType: runtime('relationType'),
    entityTypes: runtime('entityTypes'),
    maxLevel: runtime('maxLevel'),
    concurrency: target.concurrency,
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    target.prepare();
    // The other end: msg.related, or an entity picked by name.
    pickedEntityInput(E, {
      prop: 'related',
      sources: TARGET_SOURCES,
      autoLabel: E.t('tb-relation.source.related'),
      entityTypes: RELATION_ENTITY_TYPES,
      connection: () => E.input('connection').val() as string | undefined,
    });
    // The relation type and the related types left empty (or a {{msg.…}} placeholder) read the message.
    messageSettings(E, node, fromMessage(TB_RELATION));
    E.showRows(() => {
      const o = op(node);
      const find = o === 'find' || o === 'msg';
      const acts = o !== 'find';
      return {
        '.tb-row-related': acts,
        '.tb-row-related-id-type': acts && String(E.input('relatedType').val()) !== 'json',
        '.tb-row-find': find,
        '.tb-row-id-type': target.source() !== 'json',
        '.tb-tip-exists': acts,
        '.tb-tip-find': find,
      };
    }, ['operation', 'target', 'related', 'relatedType', 'targetEntityType']);
    // The summary says which way the relation goes, with the names picked (read once, then the line follows).
    const line = $('[data-tb-relation-summary]');
    const said = E.follow(
      () => line.text(summary(node)),
      ['operation', 'target', 'related', 'relatedType', 'relationType', 'direction', 'maxLevel'],
    );
    target.describe($('[data-tb-target-tip]'), 'tb-relation.entityIs.', said);
  },
  oneditsave() {
    E.trim(['relationType', 'entityTypes', 'maxLevel', 'concurrency']);
  },
});

/** tb-alarm-action's dialog: acknowledge, clear, assign, comment on, raise or delete an alarm. */
import { alarmTypeInput, userInput } from '../../editor/builder/dialogs';
import { messageSettings } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode, type Validator } from '../../editor/dialog/for-type';
import { pickedEntityInput } from '../../editor/dialog/picked-entity';
import { blank, isPlainObject, isUuid } from '../../editor/dialog/predicates';
import { parseTemplate } from '../../protocol/bindings';
import { ALARM_SEVERITIES } from '../../protocol/types';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import {
  ALARM_SOURCES,
  ASSIGNEE_SOURCES,
  COMMENT_SOURCES,
  DETAILS_SOURCES,
  ORIGINATOR_ENTITY_TYPES,
  ORIGINATOR_SOURCES,
  TB_ALARM_ACTION,
} from './settings';

const E = forType('tb-alarm-action');
const t = E.t;

type Sourced = 'alarm' | 'assignee' | 'comment' | 'originator' | 'details';
/** Where each value may come from: 'auto' is the message property the contract names. */
const SOURCES: Record<Sourced, readonly string[]> = {
  alarm: ALARM_SOURCES,
  assignee: ASSIGNEE_SOURCES,
  comment: COMMENT_SOURCES,
  originator: ORIGINATOR_SOURCES,
  details: DETAILS_SOURCES,
};

function op(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_ALARM_ACTION.settings.operation.default);
}
/** Which settings the action uses ('msg' may be any of them). */
function uses(node: EditorNode, what: 'alarm' | 'assignee' | 'comment' | 'raise'): boolean {
  const o = op(node);
  if (o === 'msg') return true;
  switch (what) {
    case 'alarm':
      return o !== 'raise';
    case 'assignee':
      return o === 'assign';
    case 'comment':
      return ['acknowledge', 'clear', 'assign', 'unassign', 'comment'].indexOf(o) !== -1;
    default:
      return o === 'raise';
  }
}
/** The message of a wrong source (the alarm's own, for the alarm id). */
function sourceError(prop: Sourced): string {
  return t(`tb-alarm-action.errors.${prop === 'alarm' ? 'alarmType' : 'source'}`, {
    field: t(`tb-alarm-action.label.${prop}`),
  });
}
/** A value with a source: the source is one of the allowed, and a chosen source has a value. */
function sourced(prop: Sourced, check?: (text: string) => true | string): Validator {
  return function (v, opt) {
    if (v === undefined) return true;
    const type = E.value(this, `${prop}Type`) || 'auto';
    if (SOURCES[prop].indexOf(type as string) === -1) return sourceError(prop);
    if (type === 'auto') return true;
    if (blank(v)) return t('tb-alarm-action.errors.source', { field: t(`tb-alarm-action.label.${prop}`) });
    if (check && (type === 'str' || type === 'json')) return check(String(v).trim());
    const r = RED.validators.typedInput(`${prop}Type`).call(this, v, opt);
    return r === true ? true : r || t('tb-alarm-action.errors.source', { field: t(`tb-alarm-action.label.${prop}`) });
  };
}
function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const o: unknown = JSON.parse(text);
    return isPlainObject(o) ? o : null;
  } catch {
    return null;
  }
}
function using(what: 'alarm' | 'assignee' | 'comment' | 'raise', validator: Validator): Validator {
  return E.when(function () {
    return uses(this, what);
  }, validator);
}

export default dialog(E, {
  declaration: TB_ALARM_ACTION,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (the choices, among them the sources, and the check boxes are checked
  // by their kind).
  validators: {
    alarm: using(
      'alarm',
      sourced('alarm', (v) => (isUuid(v) || parseTemplate(v) ? true : t('tb-alarm-action.errors.alarm'))),
    ),
    assignee: using('assignee', sourced('assignee')),
    comment: using('comment', function (v, opt) {
      // "Add a comment" with a fixed text needs the text.
      const fixed = (E.value(this, 'commentType') || 'auto') === 'str';
      if (v !== undefined && op(this) === 'comment' && fixed && blank(v)) return t('tb-alarm-action.errors.comment');
      return sourced('comment').call(this, v, opt);
    }),
    originator: using(
      'raise',
      sourced('originator', (v) => {
        const o = jsonObject(v);
        const ok = o && typeof o.entityType === 'string' && isUuid(o.id);
        return ok ? true : t('tb-alarm-action.errors.originator');
      }),
    ),
    severity: function (v, opt) {
      return v === undefined || v === '' || (ALARM_SEVERITIES as readonly unknown[]).indexOf(v) !== -1
        ? true
        : t('tb-alarm-action.errors.severity');
    },
    details: using(
      'raise',
      sourced('details', (v) => (jsonObject(v) ? true : t('tb-alarm-action.errors.details'))),
    ),
    propagateRelationTypes: E.keyList('tb-alarm-action.errors.propagateRelationTypes'),
  },
  unnamed: label,
  oneditprepare() {
    const node = this;
    const connection = () => E.input('connection').val() as string | undefined;
    // Each source: "from the message" (the contract's property) first, then the usual types; the entity to raise on
    // also "entity picked by name", kept as json (as the device actions' target).
    for (const prop of Object.keys(SOURCES) as Sourced[])
      if (prop !== 'originator') E.sourcedInput(prop, SOURCES[prop]);
    pickedEntityInput(E, {
      prop: 'originator',
      sources: SOURCES.originator,
      autoLabel: t('tb-alarm-action.source.originator'),
      entityTypes: ORIGINATOR_ENTITY_TYPES,
      connection,
    });
    // The pickers of the query builder where they apply: users, alarm types.
    userInput('#node-input-assignee', connection);
    alarmTypeInput('#node-input-alarmName', connection);
    // A raise's settings left empty (or holding a {{msg.…}} placeholder) read the alarm from msg.payload.
    messageSettings(E, node, fromMessage(TB_ALARM_ACTION));
    E.showRows(() => {
      const o = op(node);
      return {
        '.tb-row-alarm': uses(node, 'alarm'),
        '.tb-row-assignee': uses(node, 'assignee'),
        '.tb-row-comment': uses(node, 'comment'),
        '.tb-row-raise': uses(node, 'raise'),
        // "Id is a" is for a bare id: not for fixed JSON, nor an entity picked by name (kept as json).
        '.tb-row-raise-id': uses(node, 'raise') && E.input('originatorType').val() !== 'json',
        '.tb-tip-msg': o === 'msg',
        '.tb-tip-raise': uses(node, 'raise'),
      };
    }, ['operation', 'originator']);
  },
  oneditsave() {
    E.trim(['alarmName', 'propagateRelationTypes']);
  },
});

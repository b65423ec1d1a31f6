/** tb-alarm-status's dialog: whether an entity has an active alarm (of some types, of some severities). */
import { entityInput } from '../../editor/builder/dialogs';
import { dialog } from '../../editor/dialog/dialog';
import { forType } from '../../editor/dialog/for-type';
import { blank, isUuid, items } from '../../editor/dialog/predicates';
import { ALARM_SEVERITIES } from '../../protocol/types';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ALARM_STATUS } from './settings';

const E = forType('tb-alarm-status');
const t = E.t;

export default dialog(E, {
  declaration: TB_ALARM_STATUS,
  migrations: MIGRATIONS,
  // What the kinds of its settings do not say (the entity type is checked by its kind).
  validators: {
    originatorId: function (v, opt) {
      if (v === undefined) return true;
      return blank(v) || isUuid(String(v).trim()) ? true : t('tb-alarm-status.errors.originatorId');
    },
    typeList: E.keyList('tb-alarm-status.errors.typeList'),
    severityList: E.listOf(ALARM_SEVERITIES, 'tb-alarm-status.errors.severityList'),
  },
  unnamed: label,
  oneditprepare() {
    // The entity by name (the id stays in the hidden text box the node saves).
    entityInput({
      idInput: '#node-input-originatorId',
      typeInput: '#node-input-originatorType',
      connection: () => E.input('connection').val() as string | undefined,
    });
    E.multiSelect(
      'severityList',
      'severities',
      ALARM_SEVERITIES.map((s) => ({ value: s, label: t(`tb-alarm-status.severity.${s}`) })),
    );
  },
  oneditsave() {
    E.trim(['originatorId', 'typeList']);
    const types = E.input('typeList');
    if (types.val() !== '') types.val(items(types.val()).join(','));
  },
});

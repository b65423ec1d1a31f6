/** tb-trigger's dialog: a placeholder (the settings' kinds give the validators) until the dialog is built. */
import { dialog } from '../../editor/dialog/dialog';
import { forType } from '../../editor/dialog/for-type';
import { MIGRATIONS } from './migrations';
import { TB_TRIGGER } from './settings';

const E = forType('tb-trigger');

export default dialog(E, {
  declaration: TB_TRIGGER,
  migrations: MIGRATIONS,
  validators: {},
  label() {
    return String(this.name || E.t('tb-trigger.paletteLabel'));
  },
});

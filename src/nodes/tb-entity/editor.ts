/** tb-entity's dialog: the operation, the kind of entity, a default profile and the customer to assign to. */
import { messageSettings } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType } from '../../editor/dialog/for-type';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY } from './settings';

const E = forType('tb-entity');

export default dialog(E, {
  declaration: TB_ENTITY,
  migrations: MIGRATIONS,
  validators: {},
  unnamed: label,
  oneditprepare() {
    const node = this;
    // Settings a message may set: left empty, they read msg.profile / msg.customer.
    messageSettings(E, node, fromMessage(TB_ENTITY));
    E.showRows(() => {
      const op = String(E.value(node, 'operation') || 'upsert');
      const type = String(E.value(node, 'entityType') || 'DEVICE');
      const saves = op === 'upsert' || op === 'create' || op === 'update' || op === 'msg';
      // customers and entity views have no profile (a view's type is free text in its row)
      const view = type === 'ENTITY_VIEW';
      return {
        '.tb-row-profile': saves && type !== 'CUSTOMER' && !view,
        '.tb-row-customer': (op === 'assign' || op === 'msg') && type !== 'CUSTOMER',
        '.tb-tip-rows': !view,
        '.tb-tip-view-rows': view,
      };
    }, ['operation', 'entityType']);
  },
  oneditsave() {
    E.trim(['profile', 'customer', 'concurrency']);
  },
});

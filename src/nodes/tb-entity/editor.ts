/**
 * tb-entity's dialog: the operation, the kind of entity, a default profile and the customer to assign to (both
 * suggested from the server), and a line that says what the node does.
 */
import { ensureStyle } from '../../editor/builder/dom';
import { Lookups } from '../../editor/builder/lookups';
import { completions, suggest } from '../../editor/builder/widgets';
import { messageSettings } from '../../editor/dialog/device-target';
import { dialog } from '../../editor/dialog/dialog';
import { forType, type EditorNode } from '../../editor/dialog/for-type';
import { fromMessage } from '../../settings/declare';
import { label } from './label';
import { MIGRATIONS } from './migrations';
import { TB_ENTITY } from './settings';

const E = forType('tb-entity');
const t = E.t;

function operation(node: EditorNode): string {
  return String(E.value(node, 'operation') || TB_ENTITY.settings.operation.default);
}
function entityType(node: EditorNode): string {
  return String(E.value(node, 'entityType') || TB_ENTITY.settings.entityType.default);
}
function text(node: EditorNode, prop: string): string {
  return String(E.value(node, prop) ?? '').trim();
}

/** The operations that write the entity, and so take a profile. */
const SAVES = ['upsert', 'create', 'update', 'msg'];

/** The Profile box is in use: an operation that writes, on a kind of entity that has profiles. */
function takesProfile(node: EditorNode): boolean {
  // Customers and entity views have no profile (a view's type is free text in its row).
  const type = entityType(node);
  return SAVES.indexOf(operation(node)) !== -1 && type !== 'CUSTOMER' && type !== 'ENTITY_VIEW';
}
/** The Customer box is in use: assign (or an operation from the message) of a device or an asset. */
function takesCustomer(node: EditorNode): boolean {
  const op = operation(node);
  return (op === 'assign' || op === 'msg') && entityType(node) !== 'CUSTOMER';
}

/** The node read back in words: what it does to which entities, with which profile or customer. */
function summary(node: EditorNode): string {
  const op = operation(node);
  const type = entityType(node);
  const s = (key: string, opts?: Record<string, unknown>) => t(`tb-entity.summary.${key}`, opts);
  if ((op === 'assign' || op === 'unassign') && type === 'CUSTOMER') return s('notCustomer');
  if ((op === 'getCredentials' || op === 'setCredentials') && type !== 'DEVICE') return s('onlyDevices');
  const profile = text(node, 'profile');
  const customer = text(node, 'customer');
  return s(op, {
    type: t(`tb-entity.entityType.${type}`),
    by: s(type === 'CUSTOMER' ? 'byTitle' : 'byName'),
    profile: takesProfile(node) ? (profile ? s('profile', { profile }) : s('profileFromRow')) : '',
    customer: customer ? s('customer', { customer }) : s('customerFromMsg'),
  });
}

export default dialog(E, {
  declaration: TB_ENTITY,
  migrations: MIGRATIONS,
  validators: {},
  unnamed: label,
  oneditprepare() {
    const node = this;
    ensureStyle();
    // Settings a message may set: left empty, they read msg.profile / msg.customer.
    messageSettings(E, node, fromMessage(TB_ENTITY));
    E.showRows(() => {
      const view = entityType(node) === 'ENTITY_VIEW';
      return {
        '.tb-row-profile': takesProfile(node),
        '.tb-row-customer': takesCustomer(node),
        '.tb-tip-rows': !view,
        '.tb-tip-view-rows': view,
      };
    }, ['operation', 'entityType']);

    const lookups = new Lookups(() => E.input('connection').val() as string | undefined);
    // The profiles of the kind picked now (device or asset profiles), and the customers by title.
    suggest(E.input('profile'), async (typed) => completions(await lookups.profiles(entityType(node), typed)));
    suggest(E.input('customer'), async (typed) => {
      const list = await lookups.entities('CUSTOMER', typed);
      return completions(list ? list.map((c) => c.name) : null);
    });

    // A profile the server does not have: the runtime refuses it (it never creates one), but the server may have it
    // by the time the flow is deployed, so the box is warned about, not made invalid.
    const warning = $('[data-tb-profile-warning]');
    let asked = 0;
    const checkProfile = (): void => {
      const mine = ++asked;
      const type = entityType(node);
      const name = text(node, 'profile');
      if (!takesProfile(node) || name === '') {
        warning.hide().text('');
        return;
      }
      void lookups.profiles(type, '').then((names) => {
        if (mine !== asked) return;
        // null: no answer (the connection not deployed yet, the server unreachable): nothing to say.
        if (names === null || names.indexOf(name) !== -1) warning.hide().text('');
        else warning.text(t('tb-entity.warning.profile', { type: t(`tb-entity.entityType.${type}`), name })).show();
      });
    };
    E.follow(checkProfile, ['operation', 'entityType', 'profile', 'connection']);

    const line = $('[data-tb-entity-summary]');
    E.follow(() => line.text(summary(node)), ['operation', 'entityType', 'profile', 'customer']);
  },
  oneditsave() {
    E.trim(['profile', 'customer', 'concurrency']);
  },
});

/**
 * The dialogs, by node type: `TbEditor.dialog('<type>')` in nodes/<type>.html. A new dialog is a module
 * src/editor/nodes/<type>.ts (its default export: `dialog(forType('<type>'), {...})`) listed here;
 * test/editor/dialogs.test.ts checks that every node type has one, listed under its own type.
 */
import type { Dialog } from '../common/dialog';
import tbAlarmAction from './tb-alarm-action';
import tbAlarmQuery from './tb-alarm-query';
import tbAlarmStatus from './tb-alarm-status';
import tbAttributes from './tb-attributes';
import tbBuildReport from './tb-build-report';
import tbConnection from './tb-connection';
import tbEntityCount from './tb-entity-count';
import tbEntityQuery from './tb-entity-query';
import tbRpc from './tb-rpc';
import tbSubscribe from './tb-subscribe';
import tbTelemetry from './tb-telemetry';
import tbWaitUntil from './tb-wait-until';

export const DIALOGS: Readonly<Record<string, Dialog>> = {
  'tb-alarm-action': tbAlarmAction,
  'tb-alarm-query': tbAlarmQuery,
  'tb-alarm-status': tbAlarmStatus,
  'tb-attributes': tbAttributes,
  'tb-build-report': tbBuildReport,
  'tb-connection': tbConnection,
  'tb-entity-count': tbEntityCount,
  'tb-entity-query': tbEntityQuery,
  'tb-rpc': tbRpc,
  'tb-subscribe': tbSubscribe,
  'tb-telemetry': tbTelemetry,
  'tb-wait-until': tbWaitUntil,
};

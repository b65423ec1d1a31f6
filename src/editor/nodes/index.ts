/**
 * The typed dialogs, by node type: `TbEditor.dialog('<type>')` in nodes/<type>.html. A new dialog is a module
 * src/editor/nodes/<type>.ts (its default export: `dialog(forType('<type>'), {...})`) listed here;
 * test/editor/dialogs.test.ts checks that every module is listed under its own type.
 */
import type { Dialog } from '../common/dialog';
import tbAlarmAction from './tb-alarm-action';
import tbAttributes from './tb-attributes';
import tbBuildReport from './tb-build-report';
import tbConnection from './tb-connection';
import tbRpc from './tb-rpc';
import tbTelemetry from './tb-telemetry';

export const DIALOGS: Readonly<Record<string, Dialog>> = {
  'tb-alarm-action': tbAlarmAction,
  'tb-attributes': tbAttributes,
  'tb-build-report': tbBuildReport,
  'tb-connection': tbConnection,
  'tb-rpc': tbRpc,
  'tb-telemetry': tbTelemetry,
};

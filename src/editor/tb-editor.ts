/**
 * `window.TbEditor`: the dialogs' shared part. `TbEditor.dialog('<type>')` is a node type's typed definition
 * (src/editor/nodes/<type>.ts), which its html registers; `forType` and the predicates are the helpers of the
 * dialogs still written inline in their html (until each moves to src/editor/nodes).
 */
import { DIALOGS } from './nodes';
import type { Dialog } from './common/dialog';
import { ALARM_SEVERITIES, forType, labelStyle, QUERY_TYPES } from './common/for-type';
import { blank, isOn, isPlainObject, items, wholeAtLeast } from './common/predicates';

function dialog(type: string): Dialog {
  const d = DIALOGS[type];
  if (!d) throw new Error(`no dialog for ${type} in src/editor/nodes`);
  return d;
}

const api = {
  dialog,
  QUERY_TYPES,
  ALARM_SEVERITIES,
  forType,
  labelStyle,
  blank,
  isPlainObject,
  isOn,
  items,
  wholeAtLeast,
};

declare global {
  interface Window {
    TbEditor?: typeof api;
  }
}

if (!window.TbEditor) window.TbEditor = api;
